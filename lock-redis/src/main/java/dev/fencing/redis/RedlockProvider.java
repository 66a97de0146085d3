package dev.fencing.redis;

import dev.fencing.core.Backoff;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.ReleaseWatch;
import dev.fencing.redis.internal.DriftMargin;
import dev.fencing.redis.internal.LuaScript;
import dev.fencing.redis.internal.RedisVersion;
import dev.fencing.redis.internal.ReleaseSubscriptions;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Redlock: a lock held by a majority of N independent Redis masters, with fencing tokens.
 *
 * <p>Each round runs the single-instance scripts on all N nodes in parallel; the lock is granted
 * only with {@code N/2+1} nodes and a positive validity {@code ttl - elapsed - drift}, otherwise it
 * is released on every node, also those that did not answer in time. The token is the largest of
 * the majority's counters, written back to a majority before the lease is handed out unless they
 * already hold it, so any later majority shares a node that has seen it: tokens strictly increase
 * while no node loses its counter, and under {@link RedisLockProvider}'s clock assumption,
 * tightened by twice the {@linkplain Builder#tokenClockTolerance tolerance}, when nodes do.
 *
 * <p>What can go wrong: a node that comes back without its data also comes back without its lock
 * keys, and pauses and clock jumps can grant the lock twice; Redlock is not safe for correctness
 * on its own. The store's check of the token is what keeps data safe. A waiting acquire retries
 * with {@link Builder#retryBackoff}, which replaces {@link LeaseOptions#backoff()} here.
 *
 * <p>The algorithm (article §10), unclear renewals and releases, and the token analysis are in
 * {@code docs/redis.md}.
 */
public final class RedlockProvider extends AbstractLockProvider {

    private static final LuaScript ACQUIRE = LuaScript.load("acquire");
    private static final LuaScript RENEW = LuaScript.load("renew");
    private static final LuaScript RELEASE = LuaScript.load("release");
    private static final LuaScript RAISE = LuaScript.load("raise-token");

    private final List<RedlockNode> nodes;
    private final int quorum;
    private final RedisKeys keys;
    private volatile boolean nodesClosed;
    private final boolean seedTokens;
    private final String tokenIdleExpiryMillis;
    private final Duration nodeTimeout;
    private final double driftFactor;
    private final Backoff retryBackoff;
    private final String tokenClockToleranceMicros;
    private final LongSupplier wallClockMicros;
    private final LongAdder tokenWriteBacks = new LongAdder();

    private RedlockProvider(Builder builder, List<RedlockNode> nodes) {
        super(builder, "fencing-redlock-async");
        this.nodes = nodes;
        this.quorum = RedlockRound.quorumOf(nodes.size());
        this.keys = builder.keys();
        this.seedTokens = builder.tokenSeeding;
        this.tokenIdleExpiryMillis = Long.toString(builder.tokenIdleExpiry.toMillis());
        this.nodeTimeout = builder.nodeTimeout;
        this.driftFactor = builder.driftFactor;
        this.retryBackoff = builder.retryBackoff;
        this.tokenClockToleranceMicros = Long.toString(builder.tokenClockTolerance.toNanos() / 1000);
        this.wallClockMicros = builder.wallClockMicros;
    }

    /** The nodes as host:port, without the credentials a URI may carry. */
    private static String hosts(List<String> uris) {
        return uris.stream().map(RedisURI::create).map(uri -> uri.getHost() + ":" + uri.getPort())
                .collect(java.util.stream.Collectors.joining(", ", "[", "]"));
    }

    /** A builder over the independent masters at {@code uris} ({@code redis://host:port}; an odd number, 3 to 15). */
    public static Builder builder(List<String> uris) {
        if (uris == null || uris.size() < 3 || uris.size() > 15 || uris.size() % 2 == 0) {
            throw new IllegalArgumentException("Redlock needs an odd number of independent Redis masters, 3 to 15 (5 is"
                    + " usual), got " + (uris == null ? "none" : uris.size()));
        }
        uris.forEach(uri -> Checks.requireName("Redis URI", uri));
        return new Builder(List.copyOf(uris));
    }

    /** How many nodes must agree: {@code N/2+1}. */
    public int quorum() {
        return quorum;
    }

    /** The lock key of {@code resource} on every node. */
    public String lockKey(String resource) {
        return keys.lockKey(resource);
    }

    /** The token counter key of {@code resource} on every node. */
    public String tokenKey(String resource) {
        return keys.tokenKey(resource);
    }

    @Override
    protected Backoff backoffFor(LeaseOptions options) {
        return retryBackoff;
    }

    @Override
    protected void checkResource(String resource) {
        RedisKeys.checkResource(resource);
    }

    /**
     * Subscribes to the resource's release channel on every node while this process has a thread
     * waiting for it (a release publishes on each node that held the lock), waiting up to the node
     * timeout for the subscriptions; a node that is down or slow is left to the backoff.
     */
    @Override
    protected ReleaseWatch watchReleases(String resource) {
        String channel = keys.releaseChannel(resource);
        List<CompletableFuture<ReleaseSubscriptions.Watch>> watches = new ArrayList<>();
        for (RedlockNode node : nodes) {
            watches.add(node.watch(channel));
        }
        CompletableFuture<?>[] live = watches.stream()
                .map(watch -> watch.thenCompose(ReleaseSubscriptions.Watch::ready))
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(live).get(nodeTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the wait loop sees it before it sleeps
        } catch (ExecutionException | TimeoutException e) {
            // some node cannot notify us now: the others can, and the backoff covers the rest
        }
        return () -> watches.forEach(watch -> watch.thenAccept(ReleaseSubscriptions.Watch::close));
    }

    /**
     * How many threads of this provider are asleep waiting for {@code resource} now: subscribed to
     * its release notices, woken by the next one (a diagnostic).
     */
    int waitersFor(String resource) {
        return releaseSignals().sleepers(resource);
    }

    /**
     * How many acquire attempts that a majority granted needed the token write-back round because
     * fewer than a majority of the nodes answered the largest token (a diagnostic: counters in step
     * agree and need none — with {@linkplain Builder#tokenSeeding seeding} while the nodes' clocks
     * are within {@linkplain Builder#tokenClockTolerance the tolerance} of this process's, since
     * every node is offered the same seed; a node further off answers its own clock, and the grant
     * needs the round).
     */
    public long tokenWriteBacks() {
        return tokenWriteBacks.sum();
    }

    /** How many release notices or local releases found a waiting thread in this provider and woke it. */
    long wakeUps() {
        return releaseSignals().wakeUps();
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        Duration ttl = options.ttl();
        DriftMargin.requireTtlAbove(ttl, driftFactor, 1.0 / 3, "RedlockProvider (an acquire round may take a third of it)");
        long perNode = perNodeTimeoutMillis(ttl);
        String ownerId = OwnerIds.random();
        String[] keys = {lockKey(resource), tokenKey(resource)};
        String proposedMicros = Long.toString(wallClockMicros.getAsLong());
        RedlockRound acquired = onAllNodes(perNode, node -> node.run(ACQUIRE, keys, ownerId, Long.toString(ttl.toMillis()),
                seedTokens ? "1" : "0", tokenIdleExpiryMillis, proposedMicros, tokenClockToleranceMicros), majorityDecided());
        List<Long> replies = acquired.answers();
        final long token = replies.stream().filter(r -> r != null && r > 0).mapToLong(Long::longValue).max().orElse(0);
        long taken = acquired.yes();
        Duration drift = drift(ttl);
        if (taken < quorum || validityLeft(requestedAtNanos, ttl, drift) <= 0) {
            // held elsewhere, a split vote, too slow, or too few nodes answering: undo everywhere, and
            // a waiting acquire retries until its wait timeout
            undo(resource, ownerId, ttl);
            if (taken < quorum && acquired.majoritySilent()) {
                throw LockUnavailableException.unreachable(resource, acquired.describe("the acquire"), null);
            }
            return Optional.empty();
        }
        // a node that answered the maximum already holds it as its counter: when a majority did (the
        // usual case, counters in step), the write-back round is not needed
        boolean majorityAtToken = replies.stream().filter(r -> r != null && r == token).count() >= quorum;
        if (!majorityAtToken) {
            tokenWriteBacks.increment();
            RedlockRound raised = onAllNodes(perNode, node -> node.run(RAISE, new String[] {tokenKey(resource)},
                    Long.toString(token), tokenIdleExpiryMillis), majorityDecided());
            if (!raised.confirmed() || validityLeft(requestedAtNanos, ttl, drift) <= 0) {
                undo(resource, ownerId, ttl);
                if (!raised.confirmed() && raised.majoritySilent()) {
                    throw LockUnavailableException.unreachable(resource, raised.describe("the token write-back"), null);
                }
                return Optional.empty();
            }
        }
        return Optional.of(new RedlockLease(FencingToken.of(resource, token), ownerId, requestedAtNanos, ttl.minus(drift)));
    }

    /**
     * Releases the lock of a granted lease whose {@code acquireAsync} was cancelled meanwhile; if
     * no majority confirmed that release, undoes it as a failed attempt: released on every node,
     * and resent to each node that did not answer until the TTL has passed.
     */
    @Override
    protected void giveBackUnclaimed(AbstractLease lease, Duration ttl) {
        try {
            lease.close();
        } catch (LockUnavailableException e) {
            undo(lease.resource(), lease.ownerId(), ttl);
        }
    }

    /** This process's wall clock in microseconds since the epoch: the seed every node of a round is offered. */
    static long systemWallClockMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    private long validityLeft(long requestedAtNanos, Duration ttl, Duration drift) {
        return ttl.minus(drift).toNanos() - (clock().nanoTime() - requestedAtNanos);
    }

    private Duration drift(Duration ttl) {
        return DriftMargin.of(ttl, driftFactor);
    }

    private long perNodeTimeoutMillis(Duration ttl) {
        return Math.max(1, Math.min(nodeTimeout.toMillis(), ttl.toMillis() / 3));
    }

    /** {@link RedlockRound#onAllNodes} over this provider's nodes. */
    private RedlockRound onAllNodes(long timeoutMillis, Function<RedlockNode, CompletableFuture<Long>> call,
            RedlockRound.Enough enough) {
        return RedlockRound.onAllNodes(nodes, quorum, timeoutMillis, call, enough);
    }

    /** A majority said yes, or so many said no that a majority cannot. */
    private RedlockRound.Enough majorityDecided() {
        return RedlockRound.majorityDecided(nodes.size(), quorum);
    }

    /**
     * Releases the lock on every node; waits until {@code enough} says the outcome is settled.
     * A lease's release announces itself to waiters; the undo of a failed attempt does not, or
     * clients that split a vote would wake each other at once and retry in lock-step instead of
     * after their jittered backoff.
     *
     * @return the answers that came in time
     */
    private RedlockRound releaseEverywhere(String resource, String ownerId, RedlockRound.Enough enough,
            boolean announce) {
        String channel = announce ? keys.releaseChannel(resource) : "";
        RedlockRound released = onAllNodes(Math.max(nodeTimeout.toMillis(), 50), node -> node.run(RELEASE,
                new String[] {lockKey(resource)}, ownerId, channel, resource), enough);
        if (announce) {
            releaseSignals().signal(resource);
        }
        return released;
    }

    /**
     * Gives back what a failed attempt may have taken: the owner-checked release on every node,
     * and on each node that did not answer it (a dropped or late link, a node down) the release is
     * sent again while it fails, until the lock would have expired there anyway.
     */
    private void undo(String resource, String ownerId, Duration ttl) {
        RedlockRound released = releaseEverywhere(resource, ownerId, RedlockRound.EVERY_NODE, false);
        long untilNanos = System.nanoTime() + ttl.toNanos();
        for (int i = 0; i < nodes.size(); i++) {
            if (released.answers().get(i) == null) {
                giveBack(nodes.get(i), resource, ownerId, untilNanos, 0);
            }
        }
    }

    private void giveBack(RedlockNode node, String resource, String ownerId, long untilNanos, int tries) {
        if (nodesClosed) {
            return; // the lock expires there with its TTL
        }
        CompletableFuture<Long> release;
        try {
            release = node.run(RELEASE, new String[] {lockKey(resource)}, ownerId, "", resource);
        } catch (RuntimeException e) {
            release = CompletableFuture.failedFuture(e);
        }
        release.whenComplete((released, failure) -> {
            if (failure != null && System.nanoTime() < untilNanos && !nodesClosed) {
                long delayMillis = Math.min(1000, 25L << Math.min(tries, 6));
                CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS)
                        .execute(() -> giveBack(node, resource, ownerId, untilNanos, tries + 1));
            }
        });
    }

    @Override
    protected void doClose() {
        nodesClosed = true;
        nodes.forEach(RedlockNode::close);
    }

    private final class RedlockLease extends AbstractLease {
        RedlockLease(FencingToken token, String ownerId, long requestedAtNanos, Duration validity) {
            super(token, ownerId, requestedAtNanos, validity, clock(), listener());
        }

        /**
         * Renewed when a majority confirmed it by the deadline; lost only when so many nodes
         * answered "not held" that no majority can hold it. Otherwise (nodes silent or late) the
         * outcome is unclear: {@link LockUnavailableException}, and the lease's validity runs on
         * unextended — the watchdog retries on its next tick.
         */
        @Override
        protected boolean doRenew(Duration ttl) {
            DriftMargin.requireTtlAbove(ttl, driftFactor, 1.0 / 3, "RedlockProvider (a renewal round may take a third of it)");
            String[] keys = {lockKey(resource()), tokenKey(resource())};
            RedlockRound renewed = onAllNodes(perNodeTimeoutMillis(ttl), node -> node.run(RENEW, keys, ownerId(),
                    Long.toString(ttl.toMillis()), tokenIdleExpiryMillis), majorityDecided());
            if (renewed.confirmed()) {
                return true;
            }
            if (renewed.refusedByMajority()) {
                return false;
            }
            throw LockUnavailableException.unreachable(resource(), renewed.describe("the renewal")
                    + "; the lease is not known to be lost and stays valid until its current validity ends", null);
        }

        @Override
        protected Duration validityOf(Duration ttl) {
            return ttl.minus(drift(ttl));
        }

        /**
         * Released when a majority confirmed it by the deadline; reported lost only when so many
         * nodes answered "not held" that no majority held it. Otherwise {@link
         * LockUnavailableException}: the nodes that did not answer keep the lock until its TTL.
         */
        @Override
        protected boolean doRelease() {
            // settled once a majority released it: the other nodes' deletes are on their way, ahead
            // of any later command of this provider on the same connections
            RedlockRound released = releaseEverywhere(resource(), ownerId(), majorityDecided(), true);
            if (released.confirmed()) {
                return true;
            }
            if (released.refusedByMajority()) {
                return false;
            }
            throw LockUnavailableException.unreachable(resource(), released.describe("the release")
                    + "; the lock was not lost, and expires on the nodes that did not confirm at the end of its TTL",
                    null);
        }
    }

    /** Configures a {@link RedlockProvider}; every setting but the nodes is optional. */
    public static final class Builder extends RedisProviderBuilder<Builder> {
        private final List<String> uris;
        private Duration nodeTimeout = Duration.ofMillis(100);
        private Duration tokenClockTolerance = Duration.ofMillis(25);
        private LongSupplier wallClockMicros = RedlockProvider::systemWallClockMicros;
        private Backoff retryBackoff = Backoff.fullJitter(Duration.ofMillis(10), Duration.ofMillis(400));

        private Builder(List<String> uris) {
            this.uris = uris;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * How long one node's answer is awaited; default 100 ms, 1 ms to 5 s. Keep it far below the
         * TTL: each attempt uses at most a third of the TTL per round of requests.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.nodeTimeout = Checks.requireBetween("requestTimeout", requestTimeout, Duration.ofMillis(1), Duration.ofSeconds(5));
            return this;
        }

        /**
         * How far this process's clock may be from a node's for the node to seed its token from this
         * process's reading instead of its own; default 25 ms, zero to 1 s. With seeding each node's
         * token is {@code max(counter + 1, seed)}; one reading offered to every node of a round lets
         * nodes whose counters are in step answer the same token, so a grant needs no write-back
         * round (see {@link #tokenWriteBacks()}). A node whose clock is further off seeds from its own
         * clock, and the grant pays the write-back round — slower, never less safe.
         *
         * <p>What it costs: a node's seed can be up to the tolerance behind its own clock, so a node
         * that comes back with an older counter (a restore, a restart without its last writes) must
         * have been away longer than twice the tolerance plus its clock's lag, besides the
         * longest TTL the delayed-restart rule asks for anyway.
         */
        public Builder tokenClockTolerance(Duration tokenClockTolerance) {
            this.tokenClockTolerance = Checks.requireBetween("tokenClockTolerance", tokenClockTolerance, Duration.ZERO,
                    Duration.ofSeconds(1));
            return this;
        }

        /** Tests: a process whose clock is off. */
        Builder wallClockMicros(LongSupplier wallClockMicros) {
            this.wallClockMicros = wallClockMicros;
            return this;
        }

        /** The backoff between the attempts of a waiting acquire; default full jitter from 10 ms, capped at 400 ms. */
        public Builder retryBackoff(Backoff retryBackoff) {
            this.retryBackoff = Checks.requireNonNull("retryBackoff", retryBackoff);
            return this;
        }

        /**
         * Connects to every node.
         *
         * @throws LockUnavailableException if fewer than a majority of the nodes answer within
         *     {@linkplain #connectTimeout the connect timeout} (the nodes connect in parallel), or
         *     a node runs a version older than {@value RedisVersion#MINIMUM} (read from {@code INFO server})
         */
        public RedlockProvider build() {
            checkTokenSettings();
            // release notices may arrive before the provider exists: dropped until it does
            AtomicReference<Consumer<String>> releases = new AtomicReference<>(resource -> {});
            List<RedlockNode> nodes = new ArrayList<>();
            for (String uri : uris) {
                nodes.add(RedlockNode.open(uri, connectTimeout, sslOptions, resource -> java.util.Objects.requireNonNull(
                        releases.get(), "set to a consumer at creation and never cleared").accept(resource)));
            }
            // the nodes connect in parallel: one deadline for all, not one bound per node in turn
            long deadline = System.nanoTime() + connectTimeout.toNanos();
            long reachable = 0;
            for (RedlockNode node : nodes) {
                try {
                    node.connection().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    reachable++;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof RedlockNode.UnsupportedVersion tooOld) {
                        nodes.forEach(RedlockNode::close);
                        throw LockUnavailableException.providerUnavailable("Redlock provider for " + hosts(uris),
                                String.valueOf(tooOld.getMessage()), null);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (TimeoutException e) {
                    // counted as unreachable
                }
            }
            if (reachable < RedlockRound.quorumOf(uris.size())) {
                nodes.forEach(RedlockNode::close);
                throw LockUnavailableException.providerUnavailable("Redlock provider for " + hosts(uris), "only " + reachable
                        + " of " + uris.size() + " Redis nodes answered within connectTimeout " + connectTimeout.toMillis()
                        + " ms; Redlock needs a majority", null);
            }
            RedlockProvider provider = new RedlockProvider(this, List.copyOf(nodes));
            releases.set(resource -> provider.releaseSignals().signal(resource));
            return provider;
        }
    }
}
