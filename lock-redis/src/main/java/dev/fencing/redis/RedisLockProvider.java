package dev.fencing.redis;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.ReleaseWatch;
import dev.fencing.redis.internal.DriftMargin;
import dev.fencing.redis.internal.LuaScript;
import dev.fencing.redis.internal.RedisBackend;
import dev.fencing.redis.internal.RedisVersion;
import dev.fencing.redis.internal.ReleaseSubscriptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A lock on Redis — a single server, a Sentinel-managed master or a Redis Cluster, through
 * Lettuce — whose grants carry fencing tokens.
 *
 * <p>Acquire is one Lua script that sets the lock key to the owner id with the TTL and takes the
 * token {@code max(counter + 1, server TIME in µs)}; renew and release are owner-checked scripts,
 * and a release publishes a notice to waiting processes. The tokens of a resource strictly
 * increase while the counter survives, and keep increasing when it comes back old — provided the
 * granting server's clock is not set back by more than the restart or failover time and fewer
 * than one grant per microsecond is sustained (see {@link Builder#tokenSeeding}).
 *
 * <p>What can go wrong: asynchronous replication can lose a lock key in a failover and grant the
 * lock twice; the store's check of the token is what keeps data safe then. A lease counts itself
 * valid for {@code ttl - (ttl * driftFactor + 2 ms)}, so it ends before the server's expiry while
 * the server's clock runs no more than {@code driftFactor} fast. Needs Redis 5.0 or newer.
 *
 * <p>Not reentrant: a second acquire of a held resource waits like any other caller, even from
 * the thread that holds it. Thread-safe; one shared connection multiplexes every call, and Redis
 * errors surface as {@link LockUnavailableException}. The scripts, the token assumption exactly,
 * unclear replies and connection loss are in {@code docs/redis.md}.
 */
public final class RedisLockProvider extends AbstractLockProvider {

    private static final LuaScript ACQUIRE = LuaScript.load("acquire");
    static final LuaScript RENEW = LuaScript.load("renew");
    static final LuaScript RELEASE = LuaScript.load("release");

    final RedisBackend backend;
    private final RedisScriptingCommands<String, String> redis;
    final String target;
    final RedisKeys keys;
    private final ReleaseSubscriptions subscriptions;
    final Duration commandTimeout;
    private final boolean seedTokens;
    final double driftFactor;
    /** The shortest TTL that leaves a valid lease after the drift margin, computed once. */
    private final Duration minimumTtl;
    final String tokenIdleExpiryMillis;
    private final int waitReplicas;
    private final Duration waitTimeout;
    private final AtomicLong releaseNotices = new AtomicLong();
    /** Acquire scripts on their way and give-backs not yet answered: close() lets them finish first. */
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean backendClosed;

    private RedisLockProvider(Builder builder, RedisBackend backend) {
        super(builder, "fencing-redis-async");
        this.backend = backend;
        this.redis = backend.scripting();
        this.target = builder.target;
        this.keys = builder.keys();
        this.seedTokens = builder.tokenSeeding;
        this.driftFactor = builder.driftFactor;
        this.minimumTtl = DriftMargin.minimumTtl(driftFactor, 0);
        this.tokenIdleExpiryMillis = Long.toString(builder.tokenIdleExpiry.toMillis());
        this.waitReplicas = builder.waitReplicas;
        this.waitTimeout = builder.waitTimeout;
        this.commandTimeout = builder.commandTimeout;
        this.subscriptions = new ReleaseSubscriptions(backend.pubSub(), resource -> {
            releaseNotices.incrementAndGet();
            releaseSignals().signal(resource);
        });
    }

    /**
     * A builder for a provider that connects to {@code uri}: {@code redis://host:port} (also
     * {@code rediss://} for TLS) or {@code redis-sentinel://host:port,host:port#masterName}.
     */
    public static Builder builder(String uri) {
        Checks.requireName("Redis URI", uri);
        RedisURI parsed = RedisURI.create(uri);
        return new Builder((timeout, connectTimeout, ssl) -> RedisBackend.standalone(
                RedisClient.create(RedisBackend.withConnectTimeout(parsed, connectTimeout)), true, timeout,
                connectTimeout, ssl), redactedTarget(parsed), true, true);
    }

    /** A builder for a provider on a client the caller owns (and shuts down after closing the provider). */
    public static Builder builder(RedisClient client) {
        Checks.requireNonNull("client", client);
        return new Builder((timeout, connectTimeout, ssl) -> RedisBackend.standalone(client, false, timeout,
                connectTimeout, ssl), "the given RedisClient", true, false);
    }

    /**
     * A builder for a provider on a Redis Cluster reached through {@code seedUris}
     * ({@code redis://host:port} of one or more nodes). Each resource's lock and token keys share
     * a hash tag, so its scripts run on the one master that serves its slot.
     */
    public static Builder clusterBuilder(String... seedUris) {
        if (seedUris == null || seedUris.length == 0) {
            throw new IllegalArgumentException("clusterBuilder needs at least one seed URI (redis://host:port)");
        }
        List<RedisURI> parsed = new ArrayList<>();
        for (String uri : seedUris) {
            parsed.add(RedisURI.create(Checks.requireName("Redis Cluster seed URI", uri)));
        }
        String target = parsed.stream().map(RedisLockProvider::redactedTarget).collect(Collectors.joining(","));
        return new Builder((timeout, connectTimeout, ssl) -> RedisBackend.cluster(RedisClusterClient.create(
                parsed.stream().map(uri -> RedisBackend.withConnectTimeout(uri, connectTimeout)).toList()), true,
                timeout, connectTimeout, ssl), target, false, true);
    }

    /** A builder for a provider on a cluster client the caller owns (and shuts down after closing the provider). */
    public static Builder builder(RedisClusterClient client) {
        Checks.requireNonNull("client", client);
        return new Builder((timeout, connectTimeout, ssl) -> RedisBackend.cluster(client, false, timeout,
                connectTimeout, ssl), "the given RedisClusterClient", false, false);
    }

    private static String redactedTarget(RedisURI uri) {
        return uri.getSentinels().isEmpty()
                ? uri.getHost() + ":" + uri.getPort()
                : "sentinel master " + uri.getSentinelMasterId();
    }

    /** A provider with the defaults, connected to {@code uri}. */
    public static RedisLockProvider create(String uri) {
        return builder(uri).build();
    }

    /** The Redis key holding the lock of {@code resource}. */
    public String lockKey(String resource) {
        return keys.lockKey(resource);
    }

    /** The Redis key holding the token counter of {@code resource}. */
    public String tokenKey(String resource) {
        return keys.tokenKey(resource);
    }

    /** How many release notices (pub/sub messages) reached this provider: a measure of the wake-up mechanism. */
    long releaseNotices() {
        return releaseNotices.get();
    }

    /**
     * How many threads of this provider are asleep waiting for {@code resource} now: subscribed to
     * its release notices, woken by the next one (a diagnostic).
     */
    int waitersFor(String resource) {
        return releaseSignals().sleepers(resource);
    }

    /** How many release notices found a waiting thread in this provider and woke it. */
    long wakeUps() {
        return releaseSignals().wakeUps();
    }

    /** Reads the lock key, its TTL and the token counter of {@code resource}. */
    @Override
    public Optional<LockState> inspect(String resource) {
        Checks.requireName("resource", resource);
        checkResource(resource);
        try {
            String holder = backend.keys().get(lockKey(resource));
            long ttlMillis = holder == null ? 0 : Math.max(0, backend.keys().pttl(lockKey(resource)));
            String token = backend.keys().get(tokenKey(resource));
            return Optional.of(new LockState(resource, Optional.ofNullable(holder), Duration.ofMillis(ttlMillis),
                    token == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token))));
        } catch (RedisException e) {
            throw unreachable(resource, "GET/PTTL", e);
        }
    }

    @Override
    protected void checkResource(String resource) {
        RedisKeys.checkResource(resource);
    }

    /** Subscribes to the resource's release channel while this process has a thread waiting for it. */
    @Override
    protected ReleaseWatch watchReleases(String resource) {
        return subscriptions.watch(keys.releaseChannel(resource), commandTimeout);
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        requireTtlAboveMinimum(options.ttl());
        String ownerId = OwnerIds.random();
        String lockKey = lockKey(resource);
        long token;
        CompletableFuture<Void> acquiring = new CompletableFuture<>();
        inFlight.add(acquiring);
        try {
            token = ACQUIRE.run(redis, new String[] {lockKey, tokenKey(resource)},
                    ownerId, Long.toString(options.ttl().toMillis()), seedTokens ? "1" : "0", tokenIdleExpiryMillis);
            if (token != 0 && isClosed()) {
                // closed while the script was on its way: nobody will be handed this lease
                giveBack(resource, ownerId, options.ttl());
                return Optional.empty();
            }
        } catch (RedisCommandInterruptedException e) {
            // the script may have run: give back a lock we may hold, without waiting for the answer
            Thread.currentThread().interrupt();
            giveBack(resource, ownerId, options.ttl());
            return Optional.empty();
        } catch (RedisException e) {
            // a timeout or a dropped connection: the script may have run, and nobody would hold
            // the lock it took for its whole TTL
            if (!refusedByScript(e)) {
                giveBack(resource, ownerId, options.ttl());
            }
            throw unreachable(resource, "the acquire script", e);
        } finally {
            inFlight.remove(acquiring);
            acquiring.complete(null);
        }
        if (token == 0) {
            return Optional.empty();
        }
        RedisLease lease = new RedisLease(this, clock(), listener(), FencingToken.of(resource, token), ownerId, lockKey,
                requestedAtNanos, options.ttl());
        if (waitReplicas > 0) {
            awaitReplicas(lease, options.ttl());
        }
        return Optional.of(lease);
    }

    void requireTtlAboveMinimum(Duration ttl) {
        if (ttl.compareTo(minimumTtl) < 0) {
            DriftMargin.requireTtlAbove(ttl, driftFactor, 0, "RedisLockProvider"); // throws, naming the minimum
        }
    }

    private static boolean refusedByScript(RedisException e) {
        return e.getMessage() != null && e.getMessage().contains("FENCING ");
    }

    /**
     * Gives back a lock an attempt may have taken but does not hand out: the owner-checked
     * release, sent without waiting and sent again while it fails (a connection that is down)
     * until the lock would have expired anyway. On the same connection as the acquire, so Redis
     * runs it after the acquire script if that is still on its way.
     */
    private void giveBack(String resource, String ownerId, Duration ttl) {
        giveBack(resource, ownerId, System.nanoTime() + ttl.toNanos(), 0);
    }

    private void giveBack(String resource, String ownerId, long untilNanos, int tries) {
        if (backendClosed) {
            return; // close() waited for the give-backs it could; this lock expires with its TTL
        }
        CompletableFuture<Long> release;
        try {
            // bounded here: our own client arms no per-command timer, so a silent server would
            // otherwise leave this give-back in flight, and never retried, until it answered
            release = RELEASE.runAsync(backend.asyncScripting(), new String[] {lockKey(resource)}, ownerId,
                    keys.releaseChannel(resource), resource).orTimeout(commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            release = CompletableFuture.failedFuture(e);
        }
        inFlight.add(release);
        CompletableFuture<Long> sent = release;
        release.whenComplete((released, failure) -> {
            inFlight.remove(sent);
            if (failure != null && System.nanoTime() < untilNanos && !backendClosed) {
                long delayMillis = Math.min(1000, 25L << Math.min(tries, 6));
                CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS)
                        .execute(() -> giveBack(resource, ownerId, untilNanos, tries + 1));
            }
        });
    }

    /**
     * Releases the lock of a granted lease whose {@code acquireAsync} was cancelled meanwhile; if
     * that release fails (the connection is down, the reply is lost), gives the lock back as for
     * an unclear acquire: resent while it fails, until the TTL has passed.
     */
    @Override
    protected void giveBackUnclaimed(AbstractLease lease, Duration ttl) {
        try {
            lease.close();
        } catch (LockUnavailableException e) {
            giveBack(lease.resource(), lease.ownerId(), ttl);
        }
    }

    private void awaitReplicas(RedisLease lease, Duration ttl) {
        long acknowledged;
        try {
            acknowledged = backend.waitForReplicas(waitReplicas, waitTimeout);
        } catch (RedisException e) {
            // the connection may be down: give the lock back, and again while that fails
            giveBack(lease.resource(), lease.ownerId(), ttl);
            throw unreachable(lease.resource(), "WAIT for replicas", e);
        }
        if (acknowledged < waitReplicas) {
            giveBack(lease.resource(), lease.ownerId(), ttl);
            throw LockUnavailableException.unreachable(lease.resource(), "only " + acknowledged + " of "
                    + waitReplicas + " replicas acknowledged the lock within " + waitTimeout
                    + "; the lock is given back so a failover cannot grant it twice", null);
        }
    }

    LockUnavailableException unreachable(String resource, String what, RedisException e) {
        if (refusedByScript(e)) {
            return LockUnavailableException.unreachable(resource, "Redis at " + target + " refused " + what + ": "
                    + e.getMessage(), e);
        }
        return LockUnavailableException.unreachable(resource, "Redis at " + target + " did not answer " + what
                + ": " + e.getMessage(), e);
    }

    /**
     * Lets acquire scripts still on their way and give-backs not yet answered finish first (each
     * is bounded by the command timeout), so that a lock an attempt took while the provider was
     * closing is given back rather than left for its TTL; then closes the connection.
     */
    @Override
    protected void doClose() {
        long deadline = System.nanoTime() + commandTimeout.multipliedBy(2).toNanos();
        while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
            try {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture<?>[]::new))
                        .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                // a failed give-back is retried and stays in flight; a timeout ends the wait
            }
        }
        backendClosed = true;
        backend.close();
    }

    /** Opens the backend of a provider from the builder's timeouts and TLS settings. */
    @FunctionalInterface
    private interface Connector {
        RedisBackend connect(Duration commandTimeout, Duration connectTimeout, @Nullable SslOptions sslOptions);
    }

    /** Configures a {@link RedisLockProvider}; every setting is optional. */
    public static final class Builder extends RedisProviderBuilder<Builder> {
        private final Connector connector;
        private String target;
        private final boolean waitSupported;
        private final boolean ownsClient;
        private Duration commandTimeout = Duration.ofSeconds(5);
        private int waitReplicas;
        private Duration waitTimeout = Duration.ZERO;

        private Builder(Connector connector, String target, boolean waitSupported, boolean ownsClient) {
            this.connector = connector;
            this.target = target;
            this.waitSupported = waitSupported;
            this.ownsClient = ownsClient;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * How messages, health checks and logs name the server ("Redis at {@code name} did not
         * answer …"): by default the URI without credentials, or "the given RedisClient" for a client
         * passed in, whose address the provider cannot read — name it (host:port) then.
         *
         * @throws IllegalArgumentException if {@code name} is blank, over 200 characters or spans lines
         */
        public Builder serverName(String name) {
            if (name == null || name.isBlank() || name.length() > 200 || name.contains("\n") || name.contains("\r")) {
                throw new IllegalArgumentException("serverName must be 1 to 200 characters on one line (host:port),"
                        + " got " + (name == null ? "null" : "'" + name + "'"));
            }
            this.target = name.strip();
            return this;
        }

        /**
         * How long one Redis command may take before it fails; default 5 s, from 10 ms to 5 min.
         * Applies to a client the provider creates; a client passed in keeps its own options
         * (set {@code DisconnectedBehavior.REJECT_COMMANDS} on it so calls fail fast while
         * disconnected).
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.commandTimeout = Checks.requireBetween("requestTimeout", requestTimeout, Duration.ofMillis(10),
                    Duration.ofMinutes(5));
            return this;
        }

        /**
         * After each grant, run {@code WAIT replicas timeout} and hand out the lease only if at
         * least {@code replicas} replicas acknowledged the lock key; otherwise release it and
         * throw {@link LockUnavailableException}. Default off ({@code replicas = 0}).
         *
         * <p>What it buys, and what not (article §9): it narrows the window in which a failover
         * to a replica that never saw the lock grants it twice, but Redis replication stays
         * asynchronous — a replica that acknowledged can still lose the key if it restarts
         * without persistence, and {@code WAIT} does not make Redis a consensus system. It costs
         * one more round trip, and because {@code WAIT} must run on the connection that wrote,
         * it holds up the shared connection for up to {@code timeout}. Only on a standalone or
         * Sentinel-managed master; a Cluster provider refuses it.
         *
         * @param replicas 1 to 32 replicas, or 0 to turn it off
         * @param timeout 1 ms to 10 s
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            if (replicas < 0 || replicas > 32) {
                throw new IllegalArgumentException("replicas must be between 0 (off) and 32, got " + replicas);
            }
            if (replicas > 0 && !waitSupported) {
                throw new IllegalArgumentException("waitForReplicas is not available on a Redis Cluster: WAIT must run"
                        + " on the connection to the key's master that wrote the lock; use a standalone or Sentinel"
                        + " provider, or rely on the store's token check");
            }
            this.waitTimeout = replicas == 0 ? Duration.ZERO
                    : Checks.requireBetween("timeout", timeout, Duration.ofMillis(1), Duration.ofSeconds(10));
            this.waitReplicas = replicas;
            return this;
        }

        /**
         * Connects and subscribes to release notices.
         *
         * @throws IllegalArgumentException if the settings contradict each other
         * @throws LockUnavailableException if Redis cannot be reached, does not answer the connection
         *     handshake within {@linkplain #connectTimeout the connect timeout}, or runs a version older than
         *     {@value RedisVersion#MINIMUM} (read from {@code INFO server})
         */
        public RedisLockProvider build() {
            checkTokenSettings();
            if (sslOptions != null && !ownsClient) {
                throw new IllegalArgumentException("sslOptions applies to clients the provider creates; " + target
                        + " keeps its own ClientOptions: set the SslOptions there");
            }
            String provider = "Redis lock provider for " + target;
            long start = System.nanoTime();
            RedisBackend backend;
            try {
                backend = connector.connect(commandTimeout, connectTimeout, sslOptions);
            } catch (RedisException e) {
                throw LockUnavailableException.providerUnavailable(provider,
                        RedisBackend.connectFailure(e, connectTimeout, System.nanoTime() - start), e);
            }
            Optional<String> tooOld;
            try {
                tooOld = RedisVersion.problem(backend.keys().info("server"), "Redis at " + target);
            } catch (RedisException e) {
                backend.close();
                throw LockUnavailableException.providerUnavailable(provider,
                        "the server did not answer INFO server: " + e.getMessage(), e);
            }
            if (tooOld.isPresent()) {
                backend.close();
                throw LockUnavailableException.providerUnavailable("Redis lock provider for " + target, tooOld.get(),
                        null);
            }
            return new RedisLockProvider(this, backend);
        }
    }
}
