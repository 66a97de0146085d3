package dev.fencing.core;

import dev.fencing.core.internal.SafeListener;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Callbacks for lease and fencing events, so metrics and logs can be attached without a hard
 * dependency. Every method has an empty default; implement the ones you need.
 *
 * <p>Callbacks run on the thread that caused the event (a caller, or the watchdog's scheduler
 * for renewals and losses it notices), so keep them short and non-blocking. An exception thrown
 * by a callback is logged and otherwise ignored: a listener cannot break locking.
 */
public interface FencingListener {

    /** A listener that does nothing. */
    FencingListener NONE = new FencingListener() {};

    /** A lease was granted. */
    default void onGranted(Lease lease) {}

    /** A lease was renewed, by the caller or the watchdog. */
    default void onRenewed(Lease lease) {}

    /** A lease was released. */
    default void onReleased(Lease lease) {}

    /**
     * A lease was found lost: a renewal found another owner, its connection died, or it ran
     * out of time before the watchdog could renew it.
     *
     * @param reason what was found
     * @param cause the failure behind it, or {@code null}
     */
    default void onLost(Lease lease, String reason, @Nullable Throwable cause) {}

    /**
     * A lease was found lost, having been valid for {@code heldFor}: from its grant to the loss, or
     * to its local deadline if that passed before the loss was found (a release that finds an
     * expired lease long after). Every lease ends in exactly one {@link #onReleased} or one
     * {@code onLost}. The toolkit's leases call this form; by default it calls
     * {@link #onLost(Lease, String, Throwable)}.
     *
     * @param reason what was found
     * @param cause the failure behind it, or {@code null}
     * @param heldFor how long the lease was valid
     */
    default void onLost(Lease lease, String reason, @Nullable Throwable cause, Duration heldFor) {
        onLost(lease, reason, cause);
    }

    /** A store refused a write with a stale token. */
    default void onStaleWriteRejected(StaleTokenException rejection) {}

    /**
     * An early warning, for leases the watchdog renews ({@link LeaseOptions#autoRenew}): renewals
     * have been failing (errors, or a renewal still waiting for its server) and the lease has only
     * {@code remaining} left, at most the provider's warning margin
     * ({@code ProviderBuilder.expiryWarning}, a third of the TTL by default) — amazon-dynamodb-lock-client's
     * session monitor. Told once per stretch of failures; a successful renewal ends the stretch.
     * Stop starting side effects that could outlast {@code remaining}, or prepare for the loss. Called
     * on a watchdog thread: return quickly.
     *
     * @param lastFailure the last renewal's failure; null if the renewal is still waiting for its server
     */
    default void onRenewalsFailing(Lease lease, Duration remaining, @Nullable Throwable lastFailure) {}

    /**
     * An acquire call ended: once per {@code tryAcquire}, {@code acquire} or {@code acquireAsync},
     * after every attempt it made, with the time from the call to its end.
     */
    default void onAcquireFinished(String resource, AcquireOutcome outcome, Duration waited) {}

    /** A store accepted a write, update or delete under {@code token}. */
    default void onWriteAccepted(FencingToken token, String key) {}

    /**
     * A store write failed other than by a stale token (that is {@link #onStaleWriteRejected}):
     * a {@link ForeignTokenException}, a {@link ConcurrentUpdateException} or a
     * {@link WriteOutcomeUnknownException}.
     */
    default void onWriteFailed(String key, FencingException failure) {}

    /** A listener that logs every event through SLF4J (logger {@code dev.fencing}). */
    static FencingListener logging() {
        return new LoggingListener();
    }

    /** A listener that forwards every event to each of {@code listeners}, in order. */
    static FencingListener composite(FencingListener... listeners) {
        List<FencingListener> all = List.of(listeners);
        return new FencingListener() {
            @Override
            public void onGranted(Lease lease) {
                all.forEach(l -> SafeListener.of(l).onGranted(lease));
            }

            @Override
            public void onRenewed(Lease lease) {
                all.forEach(l -> SafeListener.of(l).onRenewed(lease));
            }

            @Override
            public void onReleased(Lease lease) {
                all.forEach(l -> SafeListener.of(l).onReleased(lease));
            }

            @Override
            public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
                all.forEach(l -> SafeListener.of(l).onLost(lease, reason, cause));
            }

            @Override
            public void onLost(Lease lease, String reason, @Nullable Throwable cause, Duration heldFor) {
                all.forEach(l -> SafeListener.of(l).onLost(lease, reason, cause, heldFor));
            }

            @Override
            public void onStaleWriteRejected(StaleTokenException rejection) {
                all.forEach(l -> SafeListener.of(l).onStaleWriteRejected(rejection));
            }

            @Override
            public void onRenewalsFailing(Lease lease, Duration remaining, @Nullable Throwable lastFailure) {
                all.forEach(l -> SafeListener.of(l).onRenewalsFailing(lease, remaining, lastFailure));
            }

            @Override
            public void onAcquireFinished(String resource, AcquireOutcome outcome, Duration waited) {
                all.forEach(l -> SafeListener.of(l).onAcquireFinished(resource, outcome, waited));
            }

            @Override
            public void onWriteAccepted(FencingToken token, String key) {
                all.forEach(l -> SafeListener.of(l).onWriteAccepted(token, key));
            }

            @Override
            public void onWriteFailed(String key, FencingException failure) {
                all.forEach(l -> SafeListener.of(l).onWriteFailed(key, failure));
            }
        };
    }
}
