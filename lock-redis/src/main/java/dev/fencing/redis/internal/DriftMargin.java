package dev.fencing.redis.internal;

import java.time.Duration;

/**
 * The clock-drift allowance subtracted from a lease's TTL to get its local validity:
 * {@code ttl * factor + 2 ms}. The server expires a key by its own clock; if that clock runs
 * faster than ours by up to {@code factor}, the key is gone after {@code ttl / (1 + factor)} of
 * our time, and Redis's expiry and our millisecond TTL add up to a few ms more.
 */
public final class DriftMargin {

    private static final long FIXED_MILLIS = 2;

    private DriftMargin() {}

    /** The margin for a lease of {@code ttl}. */
    public static Duration of(Duration ttl, double factor) {
        return Duration.ofNanos((long) (ttl.toNanos() * factor)).plusMillis(FIXED_MILLIS);
    }

    /**
     * The smallest whole-millisecond TTL that leaves more than {@code reserve} (a fraction of the
     * TTL, for the acquire round) once the margin is subtracted.
     */
    public static Duration minimumTtl(double factor, double reserve) {
        long millis = Math.max(1, (long) Math.floor(FIXED_MILLIS / (1 - factor - reserve)) - 1);
        while (!leavesValidity(Duration.ofMillis(millis), factor, reserve)) {
            millis++;
        }
        return Duration.ofMillis(millis);
    }

    private static boolean leavesValidity(Duration ttl, double factor, double reserve) {
        return ttl.toNanos() - of(ttl, factor).toNanos() > (long) (ttl.toNanos() * reserve);
    }

    /**
     * Refuses a TTL below {@link #minimumTtl}: it would never, or only by luck, leave a valid lease.
     *
     * @throws IllegalArgumentException naming the TTL and the minimum
     */
    public static void requireTtlAbove(Duration ttl, double factor, double reserve, String provider) {
        Duration minimum = minimumTtl(factor, reserve);
        if (ttl.compareTo(minimum) < 0) {
            throw new IllegalArgumentException("ttl " + ttl + " is below the minimum of " + minimum + " for " + provider
                    + ": its clock-drift margin (ttl * " + factor + " + " + FIXED_MILLIS + " ms) would leave no valid lease");
        }
    }
}
