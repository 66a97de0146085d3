package dev.fencing.core;

/**
 * How one call of {@link LockProvider#tryAcquire}, {@link LockProvider#acquire} or
 * {@link LockProvider#acquireAsync} ended, for {@link FencingListener#onAcquireFinished}.
 */
public enum AcquireOutcome {
    /** A lease was granted. */
    GRANTED,
    /** Another owner holds the lock: {@code tryAcquire}'s empty answer. */
    HELD,
    /** The wait timeout ran out while another owner held the lock. */
    TIMED_OUT,
    /** The server could not be reached or did not answer ({@link LockUnavailableException} other than a timeout). */
    UNAVAILABLE,
    /** The waiting thread was interrupted. */
    INTERRUPTED,
    /** An {@code acquireAsync} future was cancelled, or the call failed otherwise (a closed provider). */
    FAILED
}
