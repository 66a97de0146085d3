package dev.fencing.redis;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.LeaseWatchdog;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.redis.internal.LuaScript;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A lock on a single Redis server (standalone or Sentinel-managed, through Lettuce) whose grants
 * carry fencing tokens.
 *
 * <h2>Algorithm</h2>
 * <ol>
 *   <li>Acquire is one Lua script: {@code SET lockKey ownerId NX PX ttl} and, only if it
 *       succeeded, {@code INCR tokenKey}; it returns the token. The lock key is
 *       {@code <prefix>{resource}:lock}, the token key {@code <prefix>{resource}:token}: the hash
 *       tag keeps both in one Redis Cluster slot. The token key has no TTL of its own beyond the
 *       optional idle expiry.
 *   <li>Renew and release are owner-checked scripts (compare the stored owner id, then
 *       {@code PEXPIRE} / {@code DEL}); a release also {@code PUBLISH}es the resource on
 *       {@code <prefix>released}, which wakes this JVM's waiters at once. A waiter that misses
 *       the message retries after a jittered backoff.
 *   <li>Scripts run by {@code EVALSHA}, falling back to {@code EVAL} on {@code NOSCRIPT}.
 * </ol>
 *
 * <h2>What the tokens guarantee</h2>
 * While the token key survives, every grant's token is exactly one more than the previous one:
 * strictly increasing. If the key is lost — a fresh server, a restart without persistence, a
 * failover to a replica that missed writes, or the idle expiry — and {@linkplain
 * Builder#tokenSeeding seeding} is on (the default), the next grant restarts the counter from
 * the server's {@code TIME} in microseconds. That stays above every earlier token provided
 * (a) the server clock did not go backwards across the loss, and (b) fewer grants were made on the
 * resource than microseconds passed since the counter was last seeded — one grant per
 * microsecond, sustained, would be needed to break it. With seeding off, a lost counter restarts
 * at 1 and tokens regress: only do that where the data is durable ({@code appendfsync always}).
 *
 * <p>The lock itself is only as safe as Redis: asynchronous replication can lose a lock key in a
 * failover and grant the lock twice. The store's check of the token is what keeps data safe then.
 *
 * <p>Thread-safe; one shared connection multiplexes every call. Commands fail fast while the
 * connection is down (a lease then fails to renew and is reported lost once it expires).
 */
public final class RedisLockProvider extends AbstractLockProvider {

    private static final LuaScript ACQUIRE = LuaScript.load("acquire");
    private static final LuaScript RENEW = LuaScript.load("renew");
    private static final LuaScript RELEASE = LuaScript.load("release");

    private final RedisClient client;
    private final boolean ownsClient;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> subscription;
    private final RedisCommands<String, String> redis;
    private final String prefix;
    private final String releaseChannel;
    private final boolean seedTokens;
    private final String tokenIdleExpiryMillis;
    private final ExecutorService asyncExecutor;
    private final AtomicLong releaseNotices = new AtomicLong();

    private RedisLockProvider(Builder builder, ExecutorService asyncExecutor) {
        super(builder.clock, builder.listener, builder.watchdog, asyncExecutor);
        this.asyncExecutor = asyncExecutor;
        this.client = builder.client;
        this.ownsClient = builder.ownsClient;
        this.prefix = builder.keyPrefix;
        this.releaseChannel = prefix + "released";
        this.seedTokens = builder.tokenSeeding;
        this.tokenIdleExpiryMillis = Long.toString(builder.tokenIdleExpiry.toMillis());
        try {
            this.connection = client.connect();
            this.redis = connection.sync();
            this.subscription = client.connectPubSub();
        } catch (RedisException e) {
            asyncExecutor.shutdownNow();
            throw LockUnavailableException.unreachable("*", "cannot connect to Redis: " + e.getMessage(), e);
        }
        subscription.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String resource) {
                releaseNotices.incrementAndGet();
                releaseSignals().signal(resource);
            }
        });
        subscription.sync().subscribe(releaseChannel);
    }

    /** A builder for a provider that connects to {@code uri} ({@code redis://host:port}, {@code redis-sentinel://...}). */
    public static Builder builder(String uri) {
        Checks.requireName("Redis URI", uri);
        RedisClient client = RedisClient.create(RedisURI.create(uri));
        return new Builder(client, true);
    }

    /** A builder for a provider on a client the caller owns (and shuts down after closing the provider). */
    public static Builder builder(RedisClient client) {
        return new Builder(Checks.requireNonNull("client", client), false);
    }

    /** A provider with the defaults, connected to {@code uri}. */
    public static RedisLockProvider create(String uri) {
        return builder(uri).build();
    }

    /** The Redis key holding the lock of {@code resource}. */
    public String lockKey(String resource) {
        return prefix + "{" + resource + "}:lock";
    }

    /** The Redis key holding the token counter of {@code resource}. */
    public String tokenKey(String resource) {
        return prefix + "{" + resource + "}:token";
    }

    /** How many release notices (pub/sub messages) reached this provider: a measure of the wake-up mechanism. */
    public long releaseNotices() {
        return releaseNotices.get();
    }

    /** How many release notices found a waiting thread in this provider and woke it. */
    public long wakeUps() {
        return releaseSignals().wakeUps();
    }

    @Override
    protected void checkResource(String resource) {
        if (resource.indexOf('{') >= 0 || resource.indexOf('}') >= 0) {
            throw new IllegalArgumentException("resource must not contain '{' or '}' (they delimit the Redis Cluster"
                    + " hash tag of its keys), got '" + resource + "'");
        }
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        String ownerId = OwnerIds.random();
        long token;
        try {
            token = ACQUIRE.run(redis, new String[] {lockKey(resource), tokenKey(resource)},
                    ownerId, Long.toString(options.ttl().toMillis()), seedTokens ? "1" : "0", tokenIdleExpiryMillis);
        } catch (RedisException e) {
            throw LockUnavailableException.unreachable(resource, "Redis did not answer the acquire script: "
                    + e.getMessage() + ". Check that Redis is reachable at " + connectionDescription(), e);
        }
        if (token == 0) {
            return Optional.empty();
        }
        return Optional.of(new RedisLease(FencingToken.of(resource, token), ownerId, requestedAtNanos, options.ttl()));
    }

    private String connectionDescription() {
        return client.toString();
    }

    @Override
    protected void doClose() {
        try {
            subscription.close();
            connection.close();
        } finally {
            asyncExecutor.shutdownNow();
            if (ownsClient) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private final class RedisLease extends AbstractLease {
        RedisLease(FencingToken token, String ownerId, long requestedAtNanos, Duration ttl) {
            super(token, ownerId, requestedAtNanos, ttl, clock(), listener());
        }

        @Override
        protected boolean doRenew(Duration ttl) {
            return RENEW.run(redis, new String[] {lockKey(resource()), tokenKey(resource())},
                    ownerId(), Long.toString(ttl.toMillis()), tokenIdleExpiryMillis) == 1;
        }

        @Override
        protected boolean doRelease() {
            return RELEASE.run(redis, new String[] {lockKey(resource())}, ownerId(), releaseChannel, resource()) == 1;
        }
    }

    /** Configures a {@link RedisLockProvider}; every setting is optional. */
    public static final class Builder {
        private final RedisClient client;
        private final boolean ownsClient;
        private String keyPrefix = "fencing:";
        private FencingListener listener = FencingListener.NONE;
        private MonotonicClock clock = MonotonicClock.system();
        private LeaseWatchdog watchdog = LeaseWatchdog.shared();
        private boolean tokenSeeding = true;
        private Duration tokenIdleExpiry = Duration.ofDays(30);
        private Duration commandTimeout = Duration.ofSeconds(5);

        private Builder(RedisClient client, boolean ownsClient) {
            this.client = client;
            this.ownsClient = ownsClient;
        }

        /** The prefix of every key and channel; default {@code fencing:}. Letters, digits and {@code :_-.} only. */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || !keyPrefix.matches("[A-Za-z0-9:_.\\-]{0,64}")) {
                throw new IllegalArgumentException("keyPrefix must be up to 64 letters, digits or ':_-.', got '"
                        + keyPrefix + "'");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Lease events go here; default none. */
        public Builder listener(FencingListener listener) {
            this.listener = Checks.requireNonNull("listener", listener);
            return this;
        }

        /** The monotonic clock for lease validity; default {@link MonotonicClock#system()}. */
        public Builder clock(MonotonicClock clock) {
            this.clock = Checks.requireNonNull("clock", clock);
            return this;
        }

        /** The watchdog that renews auto-renewing leases; default {@link LeaseWatchdog#shared()}. */
        public Builder watchdog(LeaseWatchdog watchdog) {
            this.watchdog = Checks.requireNonNull("watchdog", watchdog);
            return this;
        }

        /**
         * Whether a missing token counter restarts from the server's clock in microseconds
         * (default, safe across data loss under the conditions in the class Javadoc) or from 1
         * (only safe where Redis never loses the counter).
         */
        public Builder tokenSeeding(boolean tokenSeeding) {
            this.tokenSeeding = tokenSeeding;
            return this;
        }

        /**
         * How long a resource's token counter survives without a grant or renewal, so counters of
         * resources no longer used do not pile up; default 30 days, {@link Duration#ZERO} for
         * never. At least 8 days (longer than the longest lease); needs seeding, which keeps
         * tokens increasing after the counter expired.
         */
        public Builder tokenIdleExpiry(Duration tokenIdleExpiry) {
            Checks.requireNonNull("tokenIdleExpiry", tokenIdleExpiry);
            if (!tokenIdleExpiry.isZero() && tokenIdleExpiry.compareTo(Duration.ofDays(8)) < 0) {
                throw new IllegalArgumentException("tokenIdleExpiry must be zero (never) or at least 8 days, got "
                        + tokenIdleExpiry);
            }
            this.tokenIdleExpiry = tokenIdleExpiry;
            return this;
        }

        /**
         * How long one Redis command may take before it fails; default 5 s, from 10 ms to 5 min.
         * Applies to a client the provider creates; a client passed in keeps its own options
         * (set {@code DisconnectedBehavior.REJECT_COMMANDS} on it so calls fail fast while
         * disconnected).
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = Checks.requireBetween("commandTimeout", commandTimeout, Duration.ofMillis(10),
                    Duration.ofMinutes(5));
            return this;
        }

        /**
         * Connects and subscribes to release notices.
         *
         * @throws IllegalArgumentException if the settings contradict each other
         * @throws LockUnavailableException if Redis cannot be reached
         */
        public RedisLockProvider build() {
            if (!tokenSeeding && !tokenIdleExpiry.isZero()) {
                throw new IllegalArgumentException("tokenIdleExpiry needs tokenSeeding: without seeding an expired"
                        + " counter would restart at 1 and tokens would go backwards; set tokenIdleExpiry(Duration.ZERO)");
            }
            if (ownsClient) {
                client.setOptions(ClientOptions.builder()
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .timeoutOptions(io.lettuce.core.TimeoutOptions.enabled(commandTimeout))
                        .build());
            }
            return new RedisLockProvider(this, newAsyncExecutor("fencing-redis-async"));
        }
    }
}
