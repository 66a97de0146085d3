package dev.fencing.core;

import java.time.Duration;

/**
 * A time-limited grant of a lock on one resource, with the fencing token that proves it.
 *
 * <p>Pass {@link #token()} with every write made under the lease; a fenced store refuses it once
 * a newer holder has written. The lease's own validity ({@link #remaining()},
 * {@link #isValid()}, {@link #requireValidFor}) is measured on this process's monotonic clock
 * from before the grant was requested, so it never outlasts the server's view — but a paused
 * process cannot notice its own pause, which is why the store's check is the real guarantee.
 *
 * <p>Only the holder (identified by a 128-bit random {@link #ownerId()}) can renew or release.
 * Leases are thread-safe and not bound to the thread that acquired them. Close it, preferably
 * with try-with-resources; {@link #close()} is idempotent, while {@link #release()} and
 * {@link #renew} after a release throw {@link IllegalStateException}.
 */
public interface Lease extends AutoCloseable {

    /** The locked resource. */
    String resource();

    /** The fencing token of this grant. */
    FencingToken token();

    /** The random id that proves ownership to the provider: 32 lower-case hex digits. */
    String ownerId();

    /** The validity left by the local monotonic clock; zero once expired, released or lost. */
    Duration remaining();

    /** Whether the lease is neither released nor known to be lost and has time left. */
    boolean isValid();

    /**
     * A deadline guard to call right before a side effect: returns the token if the lease is
     * held with at least {@code margin} of validity left, and throws otherwise. Cheap and local,
     * it narrows the window in which a slow holder acts late; it cannot close it (the process
     * may pause right after the check), so it complements storage fencing and never replaces it.
     *
     * @param margin the time the side effect needs, at least zero
     * @return {@link #token()}, to pass to the write
     * @throws LeaseLostException if the lease is lost or has less than {@code margin} left
     * @throws IllegalStateException if the lease was released
     */
    FencingToken requireValidFor(Duration margin);

    /**
     * Extends the lease to {@code ttl} from now, if this owner still holds the lock.
     *
     * @throws LeaseLostException if the lock is no longer held by this owner (the lease is then
     *     marked lost)
     * @throws IllegalStateException if the lease was released
     * @throws IllegalArgumentException if {@code ttl} is outside the bounds of {@link LeaseOptions}
     */
    void renew(Duration ttl);

    /**
     * Releases the lock if this owner still holds it, stops any auto-renewal and frees the
     * provider's resources (a connection, a subscription).
     *
     * @throws LeaseLostException if the lock was no longer held by this owner — it expired or was
     *     lost before the release, so part of the critical section may have run unprotected;
     *     writes fenced by the token were still safe. The lease's resources are freed anyway.
     * @throws IllegalStateException if the lease was already released
     */
    void release();

    /** {@link #release()} unless already released; idempotent. */
    @Override
    void close();
}
