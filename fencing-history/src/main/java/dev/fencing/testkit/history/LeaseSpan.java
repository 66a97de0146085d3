package dev.fencing.testkit.history;

import java.util.Objects;

/**
 * One lease as its holder saw it: granted with a token, and last told valid at some moment. All
 * times are {@link System#nanoTime()} readings of one machine (processes on one machine share its
 * monotonic clock), so spans of different client processes compare.
 *
 * @param holder who held it, for reports (a process and a thread, say {@code "p1 w3"})
 * @param lock the lock's name
 * @param token the lease's fencing token
 * @param grantedNanos when the acquire returned the lease: the grant had surely taken effect
 * @param lastValidNanos when a check that said "valid" was invoked last ({@code grantedNanos} if
 *     the holder never asked)
 */
public record LeaseSpan(String holder, String lock, long token, long grantedNanos, long lastValidNanos) {

    /**
     * @throws IllegalArgumentException if the lease was last seen valid before it was granted
     */
    public LeaseSpan {
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(lock, "lock");
        if (lastValidNanos - grantedNanos < 0) {
            throw new IllegalArgumentException("a lease is seen valid from its grant on: lastValidNanos "
                    + lastValidNanos + " is before grantedNanos " + grantedNanos);
        }
    }

    /** This span, last seen valid at {@code nanos} if that is later. */
    public LeaseSpan seenValidAt(long nanos) {
        return nanos - lastValidNanos > 0 ? new LeaseSpan(holder, lock, token, grantedNanos, nanos) : this;
    }
}
