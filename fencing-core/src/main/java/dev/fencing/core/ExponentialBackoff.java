package dev.fencing.core;

import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/** {@code min(cap, base * 2^attempt + uniform(0, jitter))} in nanoseconds, saturating instead of overflowing. */
final class ExponentialBackoff implements Backoff {

    private static final Duration MAX = Duration.ofDays(1);

    private final long baseNanos;
    private final long capNanos;
    private final long jitterNanos;
    private final @Nullable RandomGenerator random;

    ExponentialBackoff(Duration base, Duration cap, Duration jitter, @Nullable RandomGenerator random) {
        Checks.requireBetween("backoff base", base, Duration.ZERO, MAX);
        Checks.requireBetween("backoff cap", cap, Duration.ofNanos(1), MAX);
        Checks.requireBetween("backoff jitter", jitter, Duration.ZERO, MAX);
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff cap must be at least the base " + base + ", got " + cap);
        }
        this.baseNanos = base.toNanos();
        this.capNanos = cap.toNanos();
        this.jitterNanos = jitter.toNanos();
        this.random = random;
    }

    @Override
    public Duration delay(int attempt) {
        if (attempt < 0) {
            throw new IllegalArgumentException("backoff attempt must be at least 0, got " + attempt);
        }
        // base << attempt stays positive while the shift keeps the top bit clear of the sign bit
        long exponential = baseNanos != 0 && attempt >= Long.numberOfLeadingZeros(baseNanos)
                ? Long.MAX_VALUE
                : baseNanos << attempt;
        long jitter = jitterNanos == 0 ? 0 : generator().nextLong(jitterNanos + 1);
        long sum = exponential > Long.MAX_VALUE - jitter ? Long.MAX_VALUE : exponential + jitter;
        return Duration.ofNanos(Math.min(capNanos, sum));
    }

    private RandomGenerator generator() {
        return random != null ? random : ThreadLocalRandom.current();
    }

    @Override
    public String toString() {
        return "Backoff.exponential(base=" + Duration.ofNanos(baseNanos) + ", cap=" + Duration.ofNanos(capNanos)
                + ", jitter=" + Duration.ofNanos(jitterNanos) + ")";
    }
}
