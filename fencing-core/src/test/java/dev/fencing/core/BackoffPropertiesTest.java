package dev.fencing.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class BackoffPropertiesTest {

    @Property
    void delayStaysBetweenTheExponentialFloorAndTheCap(
            @ForAll @LongRange(min = 0, max = 10_000_000_000L) long baseNanos,
            @ForAll @LongRange(min = 1, max = 86_400_000_000_000L) long capNanos,
            @ForAll @LongRange(min = 0, max = 86_400_000_000_000L) long jitterNanos,
            @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int attempt,
            @ForAll long seed) {
        long cap = Math.max(capNanos, baseNanos);
        Backoff backoff = Backoff.exponential(Duration.ofNanos(baseNanos), Duration.ofNanos(cap),
                Duration.ofNanos(jitterNanos), new SplittableRandom(seed));

        long delay = backoff.delay(attempt).toNanos();

        long floor = baseNanos == 0 ? 0
                : attempt >= 63 || baseNanos > (Long.MAX_VALUE >> attempt) ? Long.MAX_VALUE : baseNanos << attempt;
        assertThat(delay).isBetween(Math.min(cap, floor), cap);
        if (floor < cap && jitterNanos < cap - floor) {
            assertThat(delay).isLessThanOrEqualTo(floor + jitterNanos);
        }
    }

    @Property
    void withoutJitterTheDelayDoublesUntilTheCap(@ForAll @IntRange(min = 0, max = 40) int attempt) {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(1), Duration.ofSeconds(10), Duration.ZERO);
        long expected = Math.min(Duration.ofSeconds(10).toMillis(), 1L << attempt);
        assertThat(backoff.delay(attempt)).isEqualTo(Duration.ofMillis(expected));
    }

    @Property
    void jitterSpreadsRetriesOfClientsInLockStep(@ForAll long seed) {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), Duration.ofMillis(50),
                new SplittableRandom(seed));
        long distinct = java.util.stream.IntStream.range(0, 20).mapToObj(i -> backoff.delay(2)).distinct().count();
        assertThat(distinct).isGreaterThan(1);
    }

    @Property(tries = 20)
    void negativeAttemptsAreRefused(@ForAll @IntRange(min = Integer.MIN_VALUE, max = -1) int attempt) {
        assertThatThrownBy(() -> Backoff.ofDefaults().delay(attempt))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Integer.toString(attempt));
    }
}
