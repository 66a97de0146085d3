package dev.fencing.core;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Grants leases on named resources, each with a {@link FencingToken} strictly greater than
 * every token granted before for the same resource (each provider documents how far this holds
 * when its server loses data).
 *
 * <p>Implementations are thread-safe. Resource names are 1 to 256 characters without control
 * characters; bad names and options are refused with {@link IllegalArgumentException} before
 * any I/O.
 */
public interface LockProvider extends AutoCloseable {

    /**
     * One attempt to acquire {@code resource}.
     *
     * @return the lease, or empty if another owner holds the lock — a normal outcome, not an error
     * @throws LockUnavailableException if the provider's server could not be asked
     */
    Optional<Lease> tryAcquire(String resource, LeaseOptions options);

    /**
     * Acquires {@code resource}, waiting up to {@link LeaseOptions#waitTimeout()} for its holder
     * to release it or for its lease to expire.
     *
     * <p>A wait timeout of zero is exactly one attempt. The call returns within the wait timeout
     * plus the time of one attempt.
     *
     * @throws LockUnavailableException if the wait timed out, or the server could not be asked;
     *     nothing is held then
     * @throws InterruptedException if the waiting thread was interrupted; nothing is held then
     */
    Lease acquire(String resource, LeaseOptions options) throws InterruptedException;

    /**
     * {@link #acquire} without blocking the caller. Cancelling the future abandons the wait; a
     * lease granted after the cancellation is released at once.
     *
     * @return a future completed with the lease, or exceptionally with the exceptions of
     *     {@link #acquire}
     */
    CompletableFuture<Lease> acquireAsync(String resource, LeaseOptions options);

    /**
     * What the server holds for {@code resource} now — holder, remaining TTL, last token — for
     * diagnosis ({@code fencing inspect}); never needed for correctness.
     *
     * @return the state, or empty if this provider cannot tell
     * @throws LockUnavailableException if the provider's server could not be asked
     */
    default Optional<LockState> inspect(String resource) {
        return Optional.empty();
    }

    /**
     * Stops the provider and frees its connections and threads. Leases still held are not
     * released by the provider: their auto-renewal stops and they expire on their TTL (a lease
     * can still be released by hand). Pending {@link #acquireAsync} futures fail. Idempotent: closing a closed provider
     * does nothing, while acquiring from it throws {@link IllegalStateException}.
     */
    @Override
    void close();
}
