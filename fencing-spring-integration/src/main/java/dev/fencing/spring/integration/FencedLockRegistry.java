package dev.fencing.spring.integration;

import dev.fencing.core.Backoff;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@code LockRegistry} whose locks are leases of a toolkit
 * {@link LockProvider} (Redis, Postgres advisory locks, Redlock, etcd, ZooKeeper), each with a
 * fencing token: {@link FencedLock#token()}, or {@link #currentToken()} on the thread that holds
 * the lock, gives it to a fenced store, which refuses the writes of a holder whose lease was lost.
 * {@code LockRegistryLeaderInitiator}, {@code LockRequestHandlerAdvice} and
 * {@code executeLocked} use it as any other registry.
 *
 * <pre>{@code
 * FencedLockRegistry registry = FencedLockRegistry.builder(locks).ttl(Duration.ofSeconds(10)).build();
 * FencedLock lock = registry.obtain("invoices");
 * lock.lock();
 * try {
 *     store.write(lock.token(), "invoice-7", "paid");
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <p>{@link #obtain} maps a key to the toolkit lock named by the key prefix and the key's
 * {@code toString()} (1 to 256 characters without control characters, refused with
 * {@link IllegalArgumentException} otherwise), and returns the same {@link FencedLock} for the
 * same key until {@link #expireUnusedOlderThan} forgets it. Leases are taken with the builder's
 * TTL and renewed by the provider's watchdog until the last unlock, unless the caller gives a TTL
 * of its own ({@code DistributedLock.lock(Duration)}, {@code tryLock(Duration, Duration)}): such a
 * lease is not renewed.
 *
 * <p>Thread-safe. The registry does not close the provider, which the caller owns.
 */
public final class FencedLockRegistry
        implements ExpirableLockRegistry<FencedLock>, RenewableLockRegistry<FencedLock> {

    private final LockProvider provider;
    private final LeaseOptions defaults;
    private final String keyPrefix;
    private final MonotonicClock clock;
    private final Map<String, FencedLock> locks = new ConcurrentHashMap<>();

    private FencedLockRegistry(Builder builder) {
        this.provider = builder.provider;
        this.defaults = LeaseOptions.builder()
                .ttl(builder.ttl)
                .autoRenew(true)
                .backoff(builder.waitBackoff)
                .build();
        this.keyPrefix = builder.keyPrefix;
        this.clock = builder.clock;
    }

    /** A registry over {@code provider} with the defaults of {@link Builder}. */
    public static FencedLockRegistry create(LockProvider provider) {
        return builder(provider).build();
    }

    /** A builder of a registry over {@code provider}, which the caller keeps and closes. */
    public static Builder builder(LockProvider provider) {
        return new Builder(Checks.requireNonNull("provider", provider));
    }

    /**
     * The token of the innermost {@link FencedLock} the current thread holds — inside a message
     * handler run under {@code LockRequestHandlerAdvice}, for instance.
     *
     * @throws IllegalStateException if the current thread holds no lock of a {@link FencedLockRegistry}
     */
    public static FencingToken currentToken() {
        FencedLock innermost = HeldLocks.innermost()
                .orElseThrow(() -> new IllegalStateException("thread '" + Thread.currentThread().getName()
                        + "' holds no lock of a FencedLockRegistry: call currentToken() on the thread that locked,"
                        + " between its lock and its last unlock"));
        if (HeldLocks.innermostEnded()) {
            throw new ConcurrentModificationException("the innermost lock of thread '"
                    + Thread.currentThread().getName() + "', '" + innermost.name() + "', was lost while held and"
                    + " a nested lock ended its section: this section has no token (an outer lock's would fence"
                    + " another lock's data)");
        }
        return innermost.token();
    }

    /**
     * The lease of the innermost {@link FencedLock} the current thread holds, if any; empty also when
     * that lock's section was lost and ended by a nested lock.
     */
    public static Optional<Lease> currentLease() {
        return HeldLocks.innermostEnded() ? Optional.empty() : HeldLocks.innermost().flatMap(FencedLock::lease);
    }

    /**
     * The lock of {@code lockKey}, the same instance for the same key.
     *
     * @throws IllegalArgumentException if the key is null, or its name is not a valid lock name
     */
    @Override
    public FencedLock obtain(Object lockKey) {
        String name = nameOf(lockKey);
        FencedLock lock = locks.computeIfAbsent(name, n -> new FencedLock(this, n));
        lock.touchObtained();
        return lock;
    }

    /**
     * Forgets the locks not held in this process and not obtained, locked or unlocked for more than
     * {@code age} milliseconds; a later {@link #obtain} makes a new instance.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = clock.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, age));
        for (String name : List.copyOf(locks.keySet())) {
            // atomic per key with adopt(): a lock being taken is either kept or put back
            locks.computeIfPresent(name, (n, lock) -> !lock.isLocked() && now - lock.lastUsedNanos() > ageNanos
                    ? null : lock);
        }
    }

    /**
     * The registry's instance of {@code lock}'s key: {@code lock} itself when it is, or when the key
     * has none ({@link #expireUnusedOlderThan} forgot it and nobody obtained the key since: it becomes
     * the key's instance again), or the instance obtained since. Atomic per key with the expiry.
     */
    FencedLock current(FencedLock lock) {
        FencedLock current = locks.compute(lock.name(), (n, existing) -> existing == null ? lock : existing);
        current.touchObtained();
        return current;
    }


    /**
     * Renews the lease of the lock of {@code lockKey} to the registry's TTL.
     *
     * @throws IllegalStateException if the current thread does not hold the lock, or its lease was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, defaults.ttl());
    }

    /**
     * Renews the lease of the lock of {@code lockKey} to {@code ttl} from now.
     *
     * @throws IllegalStateException if the current thread does not hold the lock, or its lease was lost
     * @throws IllegalArgumentException if {@code ttl} is outside the bounds of {@link LeaseOptions}
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Checks.requireBetween("ttl", ttl, LeaseOptions.MIN_TTL, LeaseOptions.MAX_TTL);
        FencedLock lock = obtain(lockKey);
        if (!lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("cannot renew lock '" + lock.name() + "': thread '"
                    + Thread.currentThread().getName() + "' does not hold it");
        }
        Lease lease = lock.lease().orElseThrow();
        try {
            lease.renew(ttl);
        } catch (LeaseLostException e) {
            throw new IllegalStateException("could not renew lock '" + lock.name() + "': " + e.getMessage(), e);
        }
    }

    private String nameOf(Object lockKey) {
        if (lockKey == null) {
            throw new IllegalArgumentException("lockKey must not be null");
        }
        return Checks.requireName("lock name (key prefix '" + keyPrefix + "' + lockKey.toString())",
                keyPrefix + lockKey);
    }

    LockProvider provider() {
        return provider;
    }

    LeaseOptions defaults() {
        return defaults;
    }

    LeaseOptions withTtl(Duration ttl) {
        return defaults.withTtl(ttl).withAutoRenew(false);
    }

    MonotonicClock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "FencedLockRegistry[" + provider + ", ttl " + defaults.ttl() + ", prefix '" + keyPrefix + "']";
    }

    /** Builds a {@link FencedLockRegistry}; every setting is optional. */
    public static final class Builder {
        private final LockProvider provider;
        private Duration ttl = Duration.ofSeconds(30);
        private Backoff waitBackoff = Backoff.ofDefaults();
        private String keyPrefix = "";
        private MonotonicClock clock = MonotonicClock.system();

        private Builder(LockProvider provider) {
            this.provider = provider;
        }

        /**
         * The TTL of the leases (30 s by default), renewed every {@code ttl / 3} while held; a holder
         * that dies keeps the lock from others for up to this long.
         */
        public Builder ttl(Duration ttl) {
            this.ttl = Checks.requireBetween("ttl", ttl, LeaseOptions.MIN_TTL, LeaseOptions.MAX_TTL);
            return this;
        }

        /** The pause between the attempts of a waiting lock ({@link Backoff#ofDefaults()} by default). */
        public Builder waitBackoff(Backoff waitBackoff) {
            this.waitBackoff = Checks.requireNonNull("waitBackoff", waitBackoff);
            return this;
        }

        /**
         * Put before every key's {@code toString()} to name its toolkit lock ({@code ""} by default),
         * so that two registries, or a registry and other users of the provider, do not share lock
         * names by accident.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Checks.requireNonNull("keyPrefix", keyPrefix);
            return this;
        }

        /** The clock of {@link #expireUnusedOlderThan} ({@link MonotonicClock#system()} by default). */
        public Builder clock(MonotonicClock clock) {
            this.clock = Checks.requireNonNull("clock", clock);
            return this;
        }

        /**
         * Builds the registry.
         *
         * @throws IllegalArgumentException if the TTL is not a whole number of milliseconds
         */
        public FencedLockRegistry build() {
            return new FencedLockRegistry(this);
        }
    }
}
