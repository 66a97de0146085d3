// Over 500 lines: grants and the session bound share one session state; a third is the public nested Builder.
package dev.fencing.zookeeper;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.ProviderBuilder;
import dev.fencing.core.spi.ReleaseWatch;
import dev.fencing.core.spi.SharedWatches;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryUntilElapsed;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock on ZooKeeper (through Apache Curator) whose grants carry the holder znode's
 * {@code czxid} as the fencing token.
 *
 * <p>Each contender creates an ephemeral sequential znode under the resource's parent; the lowest
 * holds the lock, and a waiting {@code acquire} watches only its predecessor. The token is the
 * zxid of the transaction that created the holder's znode: global, strictly increasing, durable
 * across restarts and leader changes, so tokens strictly increase per resource. A lease is valid
 * no longer than its TTL, kept by the holder's process, and no longer than the ensemble surely
 * keeps its session (see {@link Builder#serverTickTime}); a renewal confirms the znode through the
 * leader.
 *
 * <p>What can go wrong: a holder that pauses or is cut off past its session keeps running with a
 * lease it no longer has, and only a store that refuses the older token stops its late write; an
 * ensemble restored from an older snapshot can hand out tokens again, which a provider started
 * after the restore cannot tell.
 *
 * <p>Thread-safe; not reentrant (a second acquire of a held resource waits like any other caller).
 * ZooKeeper errors and timeouts surface as {@link LockUnavailableException}. The recipe, the lease
 * validity rule under partitions, restores, unclear replies and measured timings are in
 * {@code docs/zookeeper.md}.
 */
public final class ZooKeeperLockProvider extends AbstractLockProvider {

    /** How long after a lease's local validity ends its znode is deleted by its process. */
    public static final long LAPSE_MARGIN_MILLIS = 20;

    final Znodes znodes;
    private final CuratorFramework client;
    private final String root;
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLockProvider.class);

    private final String target;
    final Duration operationTimeout;
    private final Duration connectionTimeout;
    final ScheduledThreadPoolExecutor timers;
    final Set<ZooKeeperLease> held = ConcurrentHashMap.newKeySet();
    private final SharedWatches<String, WaitQueue> queues;
    private final @Nullable Duration serverTickTime;
    private final Object sessionLock = new Object();
    private SessionBound session; // guarded by sessionLock: the current session's bound
    private long disconnectedAt; // guarded by sessionLock: when the connection was last suspended or lost

    private ZooKeeperLockProvider(Builder builder, CuratorFramework client, long startedFrom) {
        super(builder, "fencing-zookeeper-async");
        this.client = client;
        this.serverTickTime = builder.serverTickTime;
        this.znodes = new Znodes(client, builder.syncBeforeConfirming);
        this.root = builder.root;
        this.target = builder.connectString;
        this.operationTimeout = builder.connectionTimeout.multipliedBy(2);
        this.connectionTimeout = builder.connectionTimeout;
        this.timers = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "fencing-zookeeper-timer");
            thread.setDaemon(true);
            return thread;
        });
        this.timers.setRemoveOnCancelPolicy(true);
        this.queues = new SharedWatches<>(r -> new WaitQueue(znodes, ZooKeeperPaths.parent(root, r),
                () -> releaseSignals().signal(r)), (r, queue) -> queue.close());
        this.session = newSessionBound(startedFrom);
        this.disconnectedAt = startedFrom;
        client.getConnectionStateListenable().addListener((c, state) -> connectionChanged(state));
        scheduleSessionCheck();
    }

    /**
     * The next session check, a tenth of the bound's session timeout from now: that timeout can shrink
     * at a reconnect, and the checks with it.
     */
    private void scheduleSessionCheck() {
        long every;
        synchronized (sessionLock) {
            every = Math.max(Duration.ofMillis(10).toNanos(), session.sessionTimeout().toNanos() / 10);
        }
        try {
            timers.schedule(() -> {
                try {
                    checkSession();
                } finally {
                    if (!isClosed()) {
                        scheduleSessionCheck();
                    }
                }
            }, every, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // closed: no more checks
        }
    }

    /** The tick the bound assumes for a session of {@code sessionTimeout}: the stated one, or half of it. */
    private Duration tickFor(Duration sessionTimeout) {
        return serverTickTime != null ? serverTickTime : sessionTimeout.dividedBy(2);
    }

    /** Tells the current bound the timeout the client last negotiated, if a reconnect changed it. Holds sessionLock. */
    private void noteNegotiatedTimeout() {
        int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        Duration timeout = Duration.ofMillis(negotiated);
        if (negotiated > 0 && !timeout.equals(session.sessionTimeout())) {
            session.renegotiated(timeout, tickFor(timeout));
        }
    }

    /** The client's session id, or 0 while it has none (connecting, or closed). */
    private long currentSessionId() {
        try {
            return znodes.sessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The bound of the client's current session, asked for after {@code requestedFrom}. */
    private SessionBound newSessionBound(long requestedFrom) {
        long id = currentSessionId();
        Duration timeout = Duration.ofMillis(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
        return new SessionBound(id, timeout, tickFor(timeout), requestedFrom);
    }

    /**
     * Confirms the session through the leader (a {@code sync} and a read, no write), so the leases'
     * validity can run on: on the timer thread, which only sends and never waits for the answer.
     */
    private void checkSession() {
        long id = currentSessionId();
        SessionBound current;
        synchronized (sessionLock) {
            if (id != 0 && id != session.sessionId()) {
                // a new session whose event this provider has not seen (yet): counted from the last disconnection
                session = newSessionBound(disconnectedAt);
            } else {
                noteNegotiatedTimeout(); // a reconnect whose event this provider has not seen (yet)
            }
            current = session;
        }
        long start = clock().nanoTime();
        for (ZooKeeperLease lease : List.copyOf(held)) {
            if (start - sessionDeadline(lease.bound) >= 0) {
                lease.lose("its ZooKeeper session was not confirmed through the leader in time: the ensemble may"
                        + " have ended it (see the lease validity rule of ZooKeeperLockProvider)");
            }
        }
        try {
            znodes.statFromLeader("/").whenComplete((stat, failure) -> {
                if (failure == null) {
                    confirmed(current, start);
                }
            });
        } catch (Exception e) {
            // not connected, or closing: nothing is confirmed, and the leases' validity runs out on its bound
        }
    }

    /** A request of {@code bound}'s session sent at {@code start} was confirmed through the leader now. */
    void confirmed(SessionBound bound, long start) {
        long answered = clock().nanoTime();
        synchronized (sessionLock) {
            if (bound == session) {
                bound.confirmed(start, answered);
            }
        }
    }

    /** The current session's bound, or for another session one already past (its leases are lost). */
    private SessionBound boundOf(long sessionId) {
        synchronized (sessionLock) {
            if (session.sessionId() == sessionId) {
                return session;
            }
        }
        Duration timeout = Duration.ofMillis(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
        return new SessionBound(sessionId, timeout, timeout, clock().nanoTime() - timeout.toNanos() * 2);
    }

    /** The earliest clock reading at which the ensemble may have ended {@code bound}'s session. */
    long sessionDeadline(SessionBound bound) {
        synchronized (sessionLock) {
            return bound.deadline();
        }
    }

    /** A builder for a provider that connects to {@code connectString} ({@code host:port,host:port}). */
    public static Builder builder(String connectString) {
        return new Builder(Checks.requireName("connectString", connectString));
    }

    /** A provider with the defaults, connected to {@code connectString}. */
    public static ZooKeeperLockProvider create(String connectString) {
        return builder(connectString).build();
    }

    /** The parent znode under which the contenders for {@code resource} stand in line. */
    public String lockPath(String resource) {
        Checks.requireName("resource", resource);
        return ZooKeeperPaths.parent(root, ZooKeeperPaths.checkResource(resource));
    }

    @Override
    protected void checkResource(String resource) {
        ZooKeeperPaths.checkResource(resource);
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        try {
            // a client that lost its connection would queue the requests for a server it cannot reach
            // and give up only when its own connection attempts fail: ask nothing until connected
            if (!client.blockUntilConnected((int) connectionTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw LockUnavailableException.unreachable(resource, "not connected to ZooKeeper at " + target
                        + ": no server answered within the connection timeout (" + connectionTimeout.toMillis() + " ms)",
                        null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        String ownerId = OwnerIds.random();
        Optional<WaitQueue> queue = queues.current(resource);
        return queue.isPresent() ? claim(queue.get(), resource, ownerId, options, requestedAtNanos)
                : contend(resource, ownerId, options, requestedAtNanos);
    }

    /** One create-and-look: the lease if the new znode is lowest, otherwise nothing left behind. */
    private Optional<AbstractLease> contend(String resource, String ownerId, LeaseOptions options, long requestedAt) {
        String parent = ZooKeeperPaths.parent(root, resource);
        Znodes.Created created;
        try {
            created = znodes.create(parent, ownerId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // Curator's protected mode deletes a znode the create may have made
            return Optional.empty();
        } catch (Znodes.WentBackwards e) {
            throw LockUnavailableException.unreachable(resource, String.valueOf(e.getMessage()), e);
        } catch (Exception e) {
            throw unreachable(resource, "the create of the contender znode", e);
        }
        boolean lowest;
        try {
            List<String> queue = znodes.queue(parent);
            lowest = !queue.isEmpty() && created.path().equals(parent + "/" + queue.get(0));
        } catch (InterruptedException e) {
            znodes.deleteInBackground(created.path());
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (Exception e) {
            znodes.deleteInBackground(created.path());
            throw unreachable(resource, "the listing of the contenders", e);
        }
        if (lowest) {
            return Optional.of(grant(resource, ownerId, created, options, requestedAt));
        }
        znodes.deleteInBackground(created.path());
        return Optional.empty();
    }

    private Optional<AbstractLease> claim(WaitQueue queue, String resource, String ownerId, LeaseOptions options,
            long requestedAt) {
        try {
            return queue.poll(ownerId).map(claim -> grant(resource, ownerId, claim.ticket(), options, requestedAt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the ticket stays in line until the waiter leaves
            return Optional.empty();
        } catch (Znodes.WentBackwards e) {
            throw LockUnavailableException.unreachable(resource, String.valueOf(e.getMessage()), e);
        } catch (Exception e) {
            throw unreachable(resource, "the waiting queue", e);
        }
    }

    private ZooKeeperLease grant(String resource, String ownerId, Znodes.Created znode, LeaseOptions options,
            long requestedAt) {
        ZooKeeperLease lease = new ZooKeeperLease(this, clock(), listener(), FencingToken.of(resource, znode.czxid()),
                ownerId, requestedAt, options.ttl(), znode, boundOf(znode.sessionId()));
        confirmed(lease.bound, requestedAt); // its create or claim was a write, through the leader
        held.add(lease);
        lease.scheduleLapse();
        if (isClosed()) {
            lease.lose("the provider was closed while the lock was being granted");
        }
        // a connection change handled between the listing and held.add above never reached this
        // lease: look at the connection now (a change from here on reaches it through held)
        if (!client.getZookeeperClient().isConnected()) {
            lease.suspended(Duration.ofMillis(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs()));
        } else {
            long session;
            try {
                session = znodes.sessionId();
            } catch (Exception e) {
                session = 0;
            }
            lease.reconnected(session);
        }
        return lease;
    }

    /** Stands this process in the resource's queue (one ticket for all its waiters), watching the predecessor. */
    @Override
    protected ReleaseWatch watchReleases(String resource) {
        return queues.join(resource);
    }

    /**
     * The holder (its owner id, or {@code "a waiter about to take it"} for a ticket not yet claimed)
     * and its token. The server keeps no TTL, so {@link LockState#remaining()} is zero; ZooKeeper
     * keeps no token of a released lock, so {@link LockState#lastToken()} is the holder's, or empty
     * when free.
     */
    @Override
    public Optional<LockState> inspect(String resource) {
        Checks.requireName("resource", resource);
        checkResource(resource);
        String parent = ZooKeeperPaths.parent(root, resource);
        try {
            for (String name : znodes.queue(parent)) {
                Stat stat = new Stat();
                Optional<String> owner = znodes.data(parent + "/" + name, stat);
                if (owner.isPresent()) {
                    String holder = owner.get().isEmpty() ? "a waiter about to take it" : owner.get();
                    return Optional.of(new LockState(resource, Optional.of(holder), Duration.ZERO,
                            OptionalLong.of(stat.getCzxid())));
                }
            }
            return Optional.of(new LockState(resource, Optional.empty(), Duration.ZERO, OptionalLong.empty()));
        } catch (Exception e) {
            throw unreachable(resource, "the listing of the contenders", e);
        }
    }

    private void connectionChanged(ConnectionState state) {
        long sessionId = currentSessionId();
        int timeoutMillis = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        report(state, timeoutMillis);
        synchronized (sessionLock) {
            switch (state) {
                case SUSPENDED, LOST -> disconnectedAt = clock().nanoTime();
                case RECONNECTED, CONNECTED -> {
                    if (sessionId != session.sessionId()) {
                        // a new session, asked for after the connection was lost
                        session = newSessionBound(disconnectedAt);
                    } else {
                        noteNegotiatedTimeout(); // the same session, negotiated again by the server reached
                    }
                }
                default -> { }
            }
        }
        for (ZooKeeperLease lease : List.copyOf(held)) {
            switch (state) {
                case SUSPENDED -> lease.suspended(Duration.ofMillis(timeoutMillis));
                case RECONNECTED, CONNECTED -> lease.reconnected(sessionId);
                case LOST -> lease.lose("the ZooKeeper session ended (expired or closed): ZooKeeper deleted its znodes");
                default -> { }
            }
        }
        if (state == ConnectionState.RECONNECTED) {
            // a waiting process's ticket, and the watch on its predecessor, end with an expired
            // session (the watch gets a session event, never the delete): the waiters look again
            // now rather than after their backoff; after a reconnect in the same session the look
            // finds the ticket still in line
            queues.keys().forEach(resource -> releaseSignals().signal(resource));
        }
    }

    /**
     * One line per change of the connection, in the toolkit's words: Curator calls this once per
     * change, however many of its own operations fail meanwhile (which it logs itself unless
     * {@code -Dcurator-dont-log-connection-problems=true}).
     */
    private void report(ConnectionState state, int timeoutMillis) {
        int leases = held.size();
        switch (state) {
            case SUSPENDED -> LOG.warn("The connection to ZooKeeper at {} was lost (a network cut, a paused process or a"
                    + " server down); reconnecting. {} lease(s) held here are lost unless the session resumes within its"
                    + " timeout of {} ms; until then no lease is renewed and new acquires fail.", target, leases,
                    timeoutMillis);
            case LOST -> LOG.warn("The session with ZooKeeper at {} ended (expired or closed): {} lease(s) still held here are"
                    + " lost and a new session is being made.", target, leases);
            case RECONNECTED -> LOG.info("Reconnected to ZooKeeper at {}; leases held here continue if their session"
                    + " lived.", target);
            default -> { }
        }
    }

    LockUnavailableException unreachable(String resource, String what, Exception e) {
        if (e instanceof org.apache.zookeeper.KeeperException.NoAuthException refused) {
            return LockUnavailableException.unreachable(resource, "ZooKeeper at " + target + " refused " + what
                    + ": the ACL of " + refused.getPath() + " does not let this session's authorization in (a wrong"
                    + " account or password, or an acl that does not name it)", e);
        }
        return LockUnavailableException.unreachable(resource, "ZooKeeper at " + target + " did not answer " + what
                + ": " + e, e);
    }

    /** Wakes this process's waiters for {@code resource}: its lease ended. */
    void signalRelease(String resource) {
        releaseSignals().signal(resource);
    }

    @Override
    protected void doClose() {
        for (ZooKeeperLease lease : List.copyOf(held)) {
            lease.lose("the provider was closed, which ended its ZooKeeper session and deleted the lock's znode");
        }
        timers.shutdownNow();
        client.close();
    }

    /** Configures a {@link ZooKeeperLockProvider}; every setting but the connect string is optional. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private final String connectString;
        private String root = "/fencing/locks";
        private Duration sessionTimeout = Duration.ofSeconds(10);
        private Duration connectionTimeout = Duration.ofSeconds(5);
        private @Nullable Duration serverTickTime;
        private @Nullable ZKClientConfig clientConfig;
        private final List<AuthInfo> authorizations = new ArrayList<>();
        private @Nullable List<ACL> acl;
        private boolean syncBeforeConfirming = true;

        private Builder(String connectString) {
            this.connectString = connectString;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The parent of every resource's znode; default {@code /fencing/locks}. An absolute path. */
        public Builder keyPrefix(String keyPrefix) {
            this.root = ZooKeeperPaths.checkRoot(keyPrefix);
            return this;
        }

        /**
         * The session timeout asked for, from 1 s to 10 min; default 10 s. The server settles it
         * within its own bounds (by default 2 to 20 ticks); a holder that stops sending heartbeats
         * loses its locks that long after its last sign of life.
         */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = Checks.requireBetween("sessionTimeout", sessionTimeout, Duration.ofSeconds(1),
                    Duration.ofMinutes(10));
            return this;
        }

        /**
         * How long to wait for a connection: when building, before each attempt while
         * disconnected, and how long after a request Curator may still retry it; from 100 ms to
         * 5 min, default 5 s. {@code build()} against servers that accept TCP and never answer
         * throws {@link LockUnavailableException} within it, naming the servers and the bound, and
         * logs no ERROR. A request to a server that accepts connections but does not answer
         * fails after the client's read timeout, two thirds of the session timeout (see "Unclear
         * replies" on {@link ZooKeeperLockProvider}).
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectionTimeout = Checks.requireBetween("connectTimeout", connectTimeout,
                    Duration.ofMillis(100), Duration.ofMinutes(5));
            return this;
        }

        /**
         * The servers' {@code tickTime}, from 1 ms to 1 min, if known; default: half the negotiated session
         * timeout, the longest tick that timeout allows when the servers' {@code minSessionTimeout} is at least
         * two ticks, as ZooKeeper's default is. A lease stays valid at most until the ensemble may end its
         * session, and the leader hears of a follower's clients up to half a tick late: a shorter tick lets
         * leases run on longer between the provider's confirmations. Set it when the servers' tick is shorter,
         * or when their {@code minSessionTimeout} is below two ticks (then the default is not a bound).
         */
        public Builder serverTickTime(Duration serverTickTime) {
            this.serverTickTime = Checks.requireBetween("serverTickTime", serverTickTime, Duration.ofMillis(1),
                    Duration.ofMinutes(1));
            return this;
        }

        /**
         * The ZooKeeper client's settings, for TLS: {@code zookeeper.client.secure=true},
         * {@code zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty} and the
         * {@code zookeeper.ssl.*} trust and key stores (see docs/security.md). Per provider, so
         * that nothing is set JVM-wide; a secure client never falls back to plaintext. Default:
         * the JVM's system properties, as ZooKeeper's own default.
         */
        public Builder zkClientConfig(ZKClientConfig clientConfig) {
            this.clientConfig = Checks.requireNonNull("zkClientConfig", clientConfig);
            return this;
        }

        /**
         * Authenticates the session with {@code scheme} (for {@code digest}: the bytes of
         * {@code user:password}) on every connection, Curator's {@code authorization}. May be
         * called again to add another. The bytes are given to ZooKeeper only: they appear in no
         * message or {@code toString}.
         */
        public Builder authorization(String scheme, byte[] auth) {
            Checks.requireName("scheme", scheme);
            Checks.requireNonNull("auth", auth);
            authorizations.add(new AuthInfo(scheme, auth.clone()));
            return this;
        }

        /**
         * The ACL of every znode the provider creates — the holders' and waiters' znodes and the
         * parents it creates: the root's missing segments and each resource's container (deleting
         * a znode is a permission on its parent). Default: {@code world:anyone} with every
         * permission. docs/security.md has an ACL only the lock's account passes, and why it names
         * the account's digest rather than {@code CREATOR_ALL_ACL} over TLS.
         *
         * @throws IllegalArgumentException if {@code acl} is empty or holds null
         */
        public Builder acl(List<ACL> acl) {
            Checks.requireNonNull("acl", acl);
            if (acl.isEmpty() || acl.stream().anyMatch(java.util.Objects::isNull)) {
                throw new IllegalArgumentException("acl must list at least one entry and no null, got " + acl.size()
                        + " entries");
            }
            // a mutable copy: Curator asks whether the list contains null, which List.of refuses to answer
            this.acl = java.util.Collections.unmodifiableList(new ArrayList<>(acl));
            return this;
        }

        /**
         * The deliberately broken variant, for the partition tests of this package only: renewals
         * and session confirmations read the znode from whichever member the client is connected
         * to, without the {@code sync} that makes the member catch up with the leader first. A
         * follower cut from its leader then confirms a lease from its own stale copy for up to
         * {@code syncLimit × tickTime}, after the ensemble ended the session and another holder
         * took the lock. Package-private: no user can build it.
         */
        Builder confirmWithoutSync() {
            this.syncBeforeConfirming = false;
            return this;
        }

        /**
         * Connects and waits for the session.
         *
         * @throws LockUnavailableException if no ZooKeeper server answered within the connection timeout
         *     (servers that accept TCP and never answer included), naming the servers and the bound;
         *     over TLS, the handshake's failure if there was one
         */
        public ZooKeeperLockProvider build() {
            long startedFrom = clock.nanoTime();
            CuratorFrameworkFactory.Builder curator = CuratorFrameworkFactory.builder().connectString(connectString)
                    .sessionTimeoutMs((int) sessionTimeout.toMillis())
                    .connectionTimeoutMs((int) connectionTimeout.toMillis())
                    .retryPolicy(new RetryUntilElapsed((int) connectionTimeout.toMillis(), 100))
                    .zookeeperFactory(ZxidZooKeeper.FACTORY)
                    // its background getConfig logs two ERROR traces when no server answers; the
                    // provider keeps the connect string it was given
                    .ensembleTracker(false);
            if (clientConfig != null) {
                curator.zkClientConfig(clientConfig);
            }
            if (!authorizations.isEmpty()) {
                curator.authorization(List.copyOf(authorizations));
            }
            List<ACL> everyZnode = acl;
            if (everyZnode != null) {
                curator.aclProvider(new ACLProvider() {
                    @Override
                    public List<ACL> getDefaultAcl() {
                        return everyZnode;
                    }

                    @Override
                    public List<ACL> getAclForPath(String path) {
                        return everyZnode;
                    }
                });
            }
            CuratorFramework client = curator.build();
            client.start();
            boolean connected;
            try {
                connected = client.blockUntilConnected((int) connectionTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                connected = false;
            }
            if (!connected) {
                closeInBackground(client);
                throw LockUnavailableException.providerUnavailable("ZooKeeper lock provider for " + connectString,
                        TlsProbe.handshakeFailure(clientConfig, connectString, connectionTimeout)
                                .orElse("no server answered: they did not answer within connectTimeout "
                                        + connectionTimeout.toMillis() + " ms"), null);
            }
            return new ZooKeeperLockProvider(this, client, startedFrom);
        }
    }

    /**
     * Closes a client that never connected without waiting: ZooKeeper's close waits for the pending
     * session request until its socket to a silent server times out (sessionTimeout / servers, 5 s
     * with the defaults and two servers), which would stretch {@code build()} past the connection
     * timeout.
     */
    private static void closeInBackground(CuratorFramework client) {
        Thread closer = new Thread(client::close, "fencing-zookeeper-close");
        closer.setDaemon(true);
        closer.start();
    }

    /** For tests: the Curator client whose session holds this provider's znodes. */
    CuratorFramework curator() {
        return client;
    }
}
