package dev.fencing.core;

import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long to wait before retry number {@code attempt} (0 for the first retry). Used between
 * acquisition attempts and between the conditional writes of a fenced update.
 *
 * <p>Randomness matters: clients that retry in lock-step collide again (the split-vote
 * livelock of Redlock); jitter spreads them out.
 */
@FunctionalInterface
public interface Backoff {

    /** The delay before retry {@code attempt}; never negative. */
    Duration delay(int attempt);

    /** Always {@code delay}. */
    static Backoff fixed(Duration delay) {
        Checks.requireBetween("fixed backoff delay", delay, Duration.ZERO, Duration.ofDays(1));
        return attempt -> delay;
    }

    /**
     * {@code min(cap, base * 2^attempt + uniform(0, jitter))}, computed without overflow, with
     * randomness from a fresh {@link java.util.concurrent.ThreadLocalRandom} per call.
     *
     * @param base the delay before the first retry, at least 0
     * @param cap the largest delay ever returned, at least {@code base} and more than 0
     * @param jitter the width of the uniform random addition, at least 0
     */
    static Backoff exponential(Duration base, Duration cap, Duration jitter) {
        return new ExponentialBackoff(base, cap, jitter, null);
    }

    /**
     * As {@link #exponential(Duration, Duration, Duration)}, drawing the jitter from
     * {@code random} (which must be thread-safe if the backoff is shared).
     */
    static Backoff exponential(Duration base, Duration cap, Duration jitter, RandomGenerator random) {
        return new ExponentialBackoff(base, cap, jitter, Checks.requireNonNull("random", random));
    }

    /**
     * "Full jitter": {@code uniform(0, min(cap, base * 2^attempt))}. The whole delay is random, which
     * spreads clients that failed together (a Redlock split vote) the most.
     *
     * @param base the ceiling of the first delay, more than 0
     * @param cap the largest ceiling, at least {@code base}
     */
    static Backoff fullJitter(Duration base, Duration cap) {
        Checks.requireBetween("full-jitter base", base, Duration.ofNanos(1), Duration.ofDays(1));
        Checks.requireBetween("full-jitter cap", cap, base, Duration.ofDays(1));
        Backoff ceiling = exponential(base, cap, Duration.ZERO);
        return attempt -> Duration.ofNanos(java.util.concurrent.ThreadLocalRandom.current()
                .nextLong(ceiling.delay(attempt).toNanos() + 1));
    }

    /** Exponential from 5 ms, capped at 250 ms, with up to 25 ms of jitter. */
    static Backoff ofDefaults() {
        return exponential(Duration.ofMillis(5), Duration.ofMillis(250), Duration.ofMillis(25));
    }
}
