package dev.fencing.core;

import dev.fencing.core.internal.Checks;
import java.time.Duration;

/**
 * How to acquire and hold a lease.
 *
 * @param ttl how long a grant lasts unless renewed; from {@link #MIN_TTL} to {@link #MAX_TTL}.
 *     The provider may count it from before the acquire request was sent, so the lease's local
 *     validity is never longer than the server's.
 * @param waitTimeout how long a blocking {@link LockProvider#acquire acquire} waits for a busy
 *     lock; zero means one attempt. From zero to {@link #MAX_WAIT}. Ignored by
 *     {@link LockProvider#tryAcquire tryAcquire}.
 * @param autoRenew whether a watchdog renews the lease every {@code ttl / 3} until it is
 *     released or lost. A renewal cannot help a holder whose whole process is paused: fencing
 *     in the store is what stays safe then.
 * @param backoff the delay between acquisition attempts while waiting (a release notification,
 *     where the provider has one, ends a wait early)
 */
public record LeaseOptions(Duration ttl, Duration waitTimeout, boolean autoRenew, Backoff backoff) {

    /** The shortest TTL: 1 ms, since servers count TTLs in milliseconds. */
    public static final Duration MIN_TTL = Duration.ofMillis(1);
    /** The longest TTL: 7 days. Longer critical sections should use {@code autoRenew}. */
    public static final Duration MAX_TTL = Duration.ofDays(7);
    /** The longest wait timeout: 7 days. */
    public static final Duration MAX_WAIT = Duration.ofDays(7);

    private static final LeaseOptions DEFAULTS =
            new LeaseOptions(Duration.ofSeconds(30), Duration.ofSeconds(30), false, Backoff.ofDefaults());

    /** Validates every component; throws {@link IllegalArgumentException} naming the bad one. */
    public LeaseOptions {
        Checks.requireBetween("ttl", ttl, MIN_TTL, MAX_TTL);
        if (ttl.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("ttl must be a whole number of milliseconds, got " + ttl);
        }
        Checks.requireBetween("waitTimeout", waitTimeout, Duration.ZERO, MAX_WAIT);
        Checks.requireNonNull("backoff", backoff);
    }

    /** TTL 30 s, wait up to 30 s, no auto-renewal, {@link Backoff#ofDefaults()}. */
    public static LeaseOptions ofDefaults() {
        return DEFAULTS;
    }

    /** The defaults with another TTL. */
    public static LeaseOptions ofTtl(Duration ttl) {
        return DEFAULTS.withTtl(ttl);
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** A copy with another TTL. */
    public LeaseOptions withTtl(Duration ttl) {
        return new LeaseOptions(ttl, waitTimeout, autoRenew, backoff);
    }

    /** A copy with another wait timeout. */
    public LeaseOptions withWaitTimeout(Duration waitTimeout) {
        return new LeaseOptions(ttl, waitTimeout, autoRenew, backoff);
    }

    /** A copy with auto-renewal switched on or off. */
    public LeaseOptions withAutoRenew(boolean autoRenew) {
        return new LeaseOptions(ttl, waitTimeout, autoRenew, backoff);
    }

    /** A copy with another backoff between the attempts of a waiting acquire. */
    public LeaseOptions withBackoff(Backoff backoff) {
        return new LeaseOptions(ttl, waitTimeout, autoRenew, backoff);
    }

    /** Builds {@link LeaseOptions}; every setter is optional. */
    public static final class Builder {
        private Duration ttl;
        private Duration waitTimeout;
        private boolean autoRenew;
        private Backoff backoff;

        private Builder(LeaseOptions from) {
            this.ttl = from.ttl;
            this.waitTimeout = from.waitTimeout;
            this.autoRenew = from.autoRenew;
            this.backoff = from.backoff;
        }

        /** See {@link LeaseOptions#ttl()}. */
        public Builder ttl(Duration ttl) {
            this.ttl = ttl;
            return this;
        }

        /** See {@link LeaseOptions#waitTimeout()}. */
        public Builder waitTimeout(Duration waitTimeout) {
            this.waitTimeout = waitTimeout;
            return this;
        }

        /** See {@link LeaseOptions#autoRenew()}. */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /** See {@link LeaseOptions#backoff()}. */
        public Builder backoff(Backoff backoff) {
            this.backoff = backoff;
            return this;
        }

        /** Validates and builds; throws {@link IllegalArgumentException} naming the bad value. */
        public LeaseOptions build() {
            return new LeaseOptions(ttl, waitTimeout, autoRenew, backoff);
        }
    }
}
