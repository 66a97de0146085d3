// Over 500 lines: a third is the public nested Builder (API); lease, queue and attempt have their own files.
package dev.fencing.etcd;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.ProviderBuilder;
import dev.fencing.core.spi.ReleaseWatch;
import dev.fencing.core.spi.SharedWatches;
import dev.fencing.etcd.internal.Replies;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A lock on etcd whose grants carry the lock key's <b>create revision</b> as their fencing token.
 *
 * <p>Acquire grants an etcd lease and creates {@code <prefix>/<resource>/lock} in one transaction
 * if the key does not exist; the toolkit's {@link dev.fencing.core.spi.LeaseWatchdog} renews it
 * (not jetcd's keep-alive stream), and release is an owner-checked delete. The create revision is
 * etcd's global revision, raised through the Raft log by every write, so each grant's token is
 * strictly greater than every earlier grant's of the same resource, as long as a majority keeps its
 * data. Tokens are global revisions, not consecutive per resource.
 *
 * <p>What can go wrong: a holder paused or partitioned past its TTL goes on believing it holds
 * while etcd grants the lock to someone else (Jepsen, etcd#11456); only the store's token check
 * stops its late write. A cluster restored from an older snapshot hands tokens out again, which a
 * provider started after the restore cannot tell.
 *
 * <p>Not reentrant. Thread-safe; one jetcd client serves every call. The algorithm, the validity
 * rule, unclear replies, restores, the waiting line and the failure modes are in
 * {@code docs/etcd.md}.
 */
public final class EtcdLockProvider extends AbstractLockProvider {

    private final Client client;
    private final boolean ownsClient;
    final KV kv;
    final Lease leases;
    private final Watch watches;
    private final EtcdKeys keys;
    final Duration requestTimeout;
    final String target;
    /** The newest revision this provider saw, and the one each resource's last failed attempt saw. */
    final EtcdRevisions revisions = new EtcdRevisions();
    /** One try of the lock key: the lease, the transaction, the token. */
    private final LockKeyAttempt lockKeyAttempt;
    /** Leases granted ahead, so an acquire waits for one etcd write instead of two. */
    final SpareLeases spareLeases;
    /** This process's place in each resource's waiting line, while some of its threads wait. */
    private final SharedWatches<String, EtcdWaitQueue> queues;
    /** Keeps the waiting lines' ticket leases alive (asynchronous calls: never blocked by a slow etcd). */
    private final java.util.concurrent.ScheduledThreadPoolExecutor timers;
    /** Lease revokes not yet answered: close() lets them finish first. */
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile boolean clientClosed;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger("dev.fencing.etcd");

    private final CompletableFuture<Optional<String>> versionWarning;

    private EtcdLockProvider(Builder builder, Client client, boolean ownsClient) {
        super(builder, "fencing-etcd-async");
        this.client = client;
        this.ownsClient = ownsClient;
        this.kv = client.getKVClient();
        this.leases = client.getLeaseClient();
        this.watches = client.getWatchClient();
        this.keys = new EtcdKeys(builder.keyPrefix);
        this.requestTimeout = builder.requestTimeout;
        this.target = builder.target;
        this.timers = new java.util.concurrent.ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "fencing-etcd-queue");
            thread.setDaemon(true);
            return thread;
        });
        this.timers.setRemoveOnCancelPolicy(true);
        this.spareLeases = new SpareLeases(leases, clock(), leaseId -> giveBack(leaseId, 0));
        this.lockKeyAttempt = new LockKeyAttempt(kv, leases, spareLeases, keys, requestTimeout, target, revisions,
                this::giveBack, this::isClosed);
        this.queues = new SharedWatches<>(r -> new EtcdWaitQueue(kv, leases, watches, timers, requestTimeout, keys, r,
                () -> releaseSignals().signal(r), leaseId -> giveBack(leaseId, EtcdWaitQueue.TICKET_TTL_SECONDS),
                this::seen), (r, queue) -> queue.close());
        this.versionWarning = versionWarning(client, builder.endpoints, requestTimeout);
        this.versionWarning.thenAccept(warning -> warning.ifPresent(LOG::warn));
    }

    /**
     * Asks the first endpoint's member for its version, without holding up the build; a member that
     * does not say comes back empty (the provider works the same either way).
     */
    private static CompletableFuture<Optional<String>> versionWarning(Client client,
            List<URI> endpoints, Duration timeout) {
        if (endpoints.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        String endpoint = endpoints.get(0).toString();
        try {
            return client.getMaintenanceClient().statusMember(endpoint)
                    .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .thenApply(status -> EtcdServerVersion.warning(status.getVersion(), endpoint))
                    .exceptionally(failure -> Optional.empty());
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
    }

    /**
     * The warning this provider logged (logger {@code dev.fencing.etcd}, WARN) about the server's
     * version, once the member answered: empty for a release without known problems for tenants.
     */
    CompletableFuture<Optional<String>> serverVersionWarning() {
        return versionWarning;
    }

    /**
     * A builder for a provider with a jetcd client of its own, connected to {@code endpoints}
     * ({@code http://host:port} or {@code https://host:port}, one per member).
     */
    public static Builder builder(String... endpoints) {
        if (endpoints == null || endpoints.length == 0) {
            throw new IllegalArgumentException("EtcdLockProvider needs at least one endpoint (http://host:port)");
        }
        List<URI> parsed = new ArrayList<>();
        for (String endpoint : endpoints) {
            parsed.add(parseEndpoint(endpoint));
        }
        return new Builder(parsed, null, String.join(",", parsed.stream().map(URI::toString).toList()));
    }

    /** A builder for a provider on a jetcd client the caller owns (and closes after closing the provider). */
    public static Builder builder(Client client) {
        return new Builder(List.of(), Checks.requireNonNull("client", client), "the given jetcd Client");
    }

    /** A provider with the defaults, connected to {@code endpoints}. */
    public static EtcdLockProvider create(String... endpoints) {
        return builder(endpoints).build();
    }

    private static URI parseEndpoint(String endpoint) {
        Checks.requireName("etcd endpoint", endpoint);
        URI uri;
        try {
            uri = URI.create(endpoint.trim());
        } catch (IllegalArgumentException e) {
            if (endpoint.contains("@")) { // perhaps user:password@: neither it nor the parser's message is echoed
                throw new IllegalArgumentException("etcd endpoint must be http://host:port or https://host:port, got"
                        + " one that does not parse and holds '@' (not shown)");
            }
            throw new IllegalArgumentException("etcd endpoint must be http://host:port or https://host:port, got '"
                    + endpoint + "'", e);
        }
        if (uri.getRawUserInfo() != null) {
            // not echoed: the user info may hold a password
            throw new IllegalArgumentException("etcd endpoint must not carry credentials (user:password@), got one for"
                    + " host " + uri.getHost() + "; use credentials(user, password)");
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getPort() < 1 || (uri.getPath() != null && !uri.getPath().isEmpty() && !"/".equals(uri.getPath()))) {
            throw new IllegalArgumentException("etcd endpoint must be http://host:port or https://host:port (no path,"
                    + " no credentials), got '" + endpoint + "'");
        }
        return uri;
    }

    /** The etcd key holding the lock of {@code resource}. */
    public String lockKey(String resource) {
        Checks.requireName("resource", resource);
        return keys.lockKey(resource);
    }

    /** The prefix of the keys of {@code resource}'s waiting line (a diagnostic: one key per waiting process). */
    String queuePrefix(String resource) {
        Checks.requireName("resource", resource);
        return keys.queuePrefix(resource);
    }

    /** How many threads of this provider are asleep waiting for {@code resource} now (a diagnostic). */
    int waitersFor(String resource) {
        return releaseSignals().sleepers(resource);
    }

    /** How many release notices found a waiting thread in this provider and woke it. */
    long wakeUps() {
        return releaseSignals().wakeUps();
    }

    /**
     * The holder's owner id, the seconds its etcd lease has left, and the holder's token (the lock
     * key's create revision). When the lock is free etcd no longer has the last token (the key is
     * gone): {@code lastToken} is then empty.
     */
    @Override
    public Optional<LockState> inspect(String resource) {
        Checks.requireName("resource", resource);
        try {
            GetResponse got = Replies.await(kv.get(keys.lockKeyBytes(resource)), requestTimeout);
            seen(got.getHeader().getRevision());
            if (got.getKvs().isEmpty()) {
                return Optional.of(new LockState(resource, Optional.empty(), Duration.ZERO, OptionalLong.empty()));
            }
            KeyValue held = got.getKvs().get(0);
            long ttlSeconds = held.getLease() == 0 ? 0
                    : Replies.await(leases.timeToLive(held.getLease(), LeaseOption.DEFAULT), requestTimeout).getTTL();
            return Optional.of(new LockState(resource, Optional.of(text(held.getValue())),
                    Duration.ofSeconds(Math.max(0, ttlSeconds)), OptionalLong.of(held.getCreateRevision())));
        } catch (Replies.Unclear e) {
            throw unreachable(resource, "the read of the lock key", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw LockUnavailableException.unreachable(resource, "interrupted while reading the lock key", e);
        }
    }

    /**
     * A waiting process's attempts go through its place in line ({@link EtcdWaitQueue}): only the
     * head of the line tries the lock key. Without local waiters, one try of the lock key.
     */
    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        Optional<EtcdWaitQueue> waiting = queues.current(resource);
        if (waiting.isEmpty()) {
            return attemptLockKey(resource, options, requestedAtNanos);
        }
        try {
            return waiting.get().poll(() -> attemptLockKey(resource, options, requestedAtNanos),
                    () -> revisions.lastFailedAttempt(resource));
        } catch (Replies.Unclear e) {
            throw unreachable(resource, "the waiting line", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** One try of the lock key ({@link LockKeyAttempt}); the key taken becomes the lease. */
    private Optional<AbstractLease> attemptLockKey(String resource, LeaseOptions options, long requestedAtNanos) {
        return lockKeyAttempt.attempt(resource, options.ttl(), requestedAtNanos)
                .map(taken -> new EtcdLease(this, clock(), listener(), FencingToken.of(resource, taken.token()),
                        taken.ownerId(), taken.key(), taken.owner(), taken.leaseId(), taken.leaseTtlSeconds(),
                        taken.validFromNanos(), options.ttl()));
    }

    /** Raises the high-water mark to {@code revision}, the revision of an answer. */
    void seen(long revision) {
        revisions.seen(revision);
    }

    /**
     * Revokes {@code leaseId} without waiting, and again while that fails, until the lease would
     * have expired anyway ({@code ttlSeconds} from now). Revoking a lease deletes the keys attached
     * to it and makes a put that names it fail, so it gives back whatever an attempt may have taken.
     */
    void giveBack(long leaseId, long ttlSeconds) {
        giveBack(leaseId, System.nanoTime() + TimeUnit.SECONDS.toNanos(ttlSeconds), 0);
    }

    private void giveBack(long leaseId, long untilNanos, int tries) {
        if (clientClosed) {
            return; // close() waited for the revokes it could; this lease expires with its TTL
        }
        CompletableFuture<?> revoke;
        try {
            revoke = leases.revoke(leaseId).orTimeout(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException e) {
            revoke = CompletableFuture.failedFuture(e);
        }
        inFlight.add(revoke);
        CompletableFuture<?> sent = revoke;
        revoke.whenComplete((done, failure) -> {
            inFlight.remove(sent);
            if (failure != null && !Replies.isLeaseNotFound(failure) && System.nanoTime() < untilNanos && !clientClosed) {
                long delayMillis = Math.min(1000, 25L << Math.min(tries, 6));
                CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS)
                        .execute(() -> giveBack(leaseId, untilNanos, tries + 1));
            }
        });
    }

    /**
     * Stands this process in the resource's line (one ticket for all its waiters, see
     * {@link EtcdWaitQueue}); the waiter's next attempt puts the ticket in and starts the watch
     * that wakes it: on the lock key at the head, on the ticket before its own elsewhere.
     */
    @Override
    protected ReleaseWatch watchReleases(String resource) {
        return queues.join(resource);
    }

    LockUnavailableException unreachable(String resource, String what, Throwable cause) {
        return LockKeyAttempt.unreachable(target, resource, what, cause);
    }

    /**
     * Lets lease revokes still on their way finish first (each bounded by the request timeout), so
     * that a lock an attempt took while the provider was closing is given back rather than left
     * for its TTL; then closes the client if the provider created it.
     */
    /** Wakes this process's waiters for {@code resource}: its lease ended. */
    void signalRelease(String resource) {
        releaseSignals().signal(resource);
    }

    @Override
    protected void doClose() {
        spareLeases.close();
        queues.watches().forEach(EtcdWaitQueue::abandon); // revoked below, not left for their TTL
        long deadline = System.nanoTime() + requestTimeout.multipliedBy(2).toNanos();
        while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
            try {
                CompletableFuture.allOf(inFlight.toArray(CompletableFuture<?>[]::new))
                        .get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // a failed revoke is retried and stays in flight; a timeout ends the wait
            }
        }
        clientClosed = true;
        timers.shutdownNow();
        if (ownsClient) {
            client.close();
        }
    }

    private static String text(ByteSequence bytes) {
        return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Configures an {@link EtcdLockProvider}; every setting but the endpoints or client is optional. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private final List<URI> endpoints;
        private final @Nullable Client client;
        private final String target;
        private String keyPrefix = "fencing";
        private Duration requestTimeout = Duration.ofSeconds(5);
        private @Nullable SslContext sslContext;
        private @Nullable String user;
        private @Nullable String password;

        private Builder(List<URI> endpoints, @Nullable Client client, String target) {
            this.endpoints = endpoints;
            this.client = client;
            this.target = target;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The prefix of every lock key ({@code <prefix>/<resource>/lock}); default {@code fencing}.
         * 1 to 64 characters of letters, digits and {@code _.-} in segments separated by single
         * {@code /}.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = EtcdKeys.requirePrefix(keyPrefix);
            return this;
        }

        /**
         * How long one etcd request may take before the provider gives up on it; default 5 s, from
         * 10 ms to 5 min. An acquire whose transaction did not answer in time revokes its lease (see
         * "Unclear replies" in {@code docs/etcd.md}); a renewal waits at most a third of the TTL or
         * this, whichever is less.
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = Checks.requireBetween("requestTimeout", requestTimeout, Duration.ofMillis(10),
                    Duration.ofMinutes(5));
            return this;
        }

        /**
         * The TLS settings of the provider's own client, for {@code https://} endpoints: the
         * authority that signed etcd's certificate and, for {@code --client-cert-auth}, this
         * client's certificate and key. Build it with {@code GrpcSslContexts.forClient()} (gRPC
         * needs its ALPN settings). Without it, {@code https://} endpoints trust the JVM's default
         * authorities; {@code http://} endpoints with it are refused: TLS is never dropped silently.
         * Not for {@link #builder(Client)}: set it on the jetcd client instead.
         */
        public Builder sslContext(SslContext sslContext) {
            this.sslContext = Checks.requireNonNull("sslContext", sslContext);
            return this;
        }

        /**
         * The etcd user the provider's own client authenticates as (etcd's RBAC, {@code etcdctl
         * auth enable}); its role needs read and write on the key prefix's range, see
         * docs/security.md. The password is kept for the client only: it appears in no message or
         * {@code toString}. Not for {@link #builder(Client)}: set it on the jetcd client instead.
         */
        public Builder credentials(String user, String password) {
            this.user = Checks.requireName("etcd user", user);
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException("the etcd password of user '" + user + "' must not be empty");
            }
            this.password = password;
            return this;
        }

        /**
         * Connects (for a provider with its own client) and reads the key prefix once to check
         * that etcd answers.
         *
         * @throws LockUnavailableException if etcd does not answer within the request timeout,
         *     refuses the credentials, or the TLS handshake fails
         * @throws IllegalArgumentException if TLS or credentials are set for a client the caller
         *     owns, or TLS for {@code http://} endpoints
         */
        public EtcdLockProvider build() {
            Client given = client;
            boolean owns = given == null;
            Client connected = given == null ? connect() : refuseOwnSettings(given);
            try {
                Replies.await(connected.getKVClient().get(EtcdKeys.bytes(keyPrefix + "/"),
                        GetOption.builder().withCountOnly(true).build()), requestTimeout);
            } catch (Replies.Unclear e) {
                if (owns) {
                    connected.close();
                }
                throw LockUnavailableException.providerUnavailable("etcd lock provider for " + target,
                        EtcdConnectFailures.describe(e, requestTimeout, owns ? tlsContext() : null, firstEndpoint()),
                        e);
            } catch (InterruptedException e) {
                if (owns) {
                    connected.close();
                }
                Thread.currentThread().interrupt();
                throw LockUnavailableException.providerUnavailable("etcd lock provider for " + target,
                        "interrupted while connecting", e);
            }
            return new EtcdLockProvider(this, connected, owns);
        }

        private boolean tls() {
            return endpoints.stream().anyMatch(uri -> "https".equals(uri.getScheme()));
        }

        /** The TLS settings of the provider's own client, or null for plaintext endpoints. */
        private @Nullable SslContext tlsContext() {
            if (!tls()) {
                return null;
            }
            if (sslContext == null) {
                sslContext = EtcdConnectFailures.defaultSslContext();
            }
            return sslContext;
        }

        private URI firstEndpoint() {
            return endpoints.isEmpty() ? URI.create("http://unknown:1") : endpoints.get(0);
        }

        private Client refuseOwnSettings(Client given) {
            if (sslContext != null || user != null) {
                throw new IllegalArgumentException("sslContext and credentials configure the provider's own client;"
                        + " set them on the jetcd ClientBuilder of the Client you pass (sslContext, user, password)");
            }
            return given;
        }

        private Client connect() {
            boolean tls = tls();
            if (tls && endpoints.stream().anyMatch(uri -> "http".equals(uri.getScheme()))) {
                throw new IllegalArgumentException("etcd endpoints mix http:// and https://: " + target);
            }
            if (!tls && sslContext != null) {
                throw new IllegalArgumentException("sslContext is set but the etcd endpoints are http:// (plaintext): "
                        + target + "; use https:// endpoints");
            }
            ClientBuilder builder = Client.builder().endpoints(endpoints.toArray(URI[]::new))
                    .connectTimeout(requestTimeout)
                    // jetcd's own retries of a failed send: short, and not past the provider's own bound
                    .retryDelay(50).retryMaxDelay(1000).retryChronoUnit(java.time.temporal.ChronoUnit.MILLIS)
                    .retryMaxDuration(requestTimeout.compareTo(Duration.ofMillis(200)) > 0
                            ? requestTimeout : Duration.ofMillis(200));
            SslContext context = tlsContext();
            if (context != null) {
                builder.sslContext(context);
            }
            if (user != null && password != null) {
                builder.user(EtcdKeys.bytes(user)).password(EtcdKeys.bytes(password));
            }
            return builder.build();
        }
    }
}
