package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.core.LockProvider;
import dev.fencing.redis.RedisFencedStore;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.redis.RedlockProvider;
import dev.fencing.testkit.servers.NetworkLab;
import dev.fencing.testkit.servers.RedisLabNodes;
import dev.fencing.testkit.servers.RedisSentinelLab;
import dev.fencing.testkit.servers.RedisTestServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Redis for a CLI run: the redis lock, Redlock and the redis store, on the servers the connection
 * options name or on embedded {@code redis-server} processes — for a Redis lock and a Redis store
 * two separate ones, so a fault injected into the lock's server (a restart that loses every key)
 * never touches the data the store keeps.
 */
final class RedisBackend {

    static final String STORE_PREFIX = "fencing-cli:";

    private RedisBackend() {}

    static OpenedLock lock(Opening opening) {
        List<String> uris = opening.connections.redisLockUris();
        String uri;
        String description;
        List<Fault> faults = new ArrayList<>();
        String tokenNote = "max(counter + 1, the server's TIME in microseconds) per grant: a counter that comes back old"
                + " or not at all is overtaken by the server's clock";
        if (uris.isEmpty()) {
            SnapshotRestore snapshots = SnapshotRestore.launch();
            opening.closeLater(snapshots);
            RedisTestServer server = snapshots.server();
            uri = server.uri();
            description = "redis lock on an embedded redis-server at " + server.host() + ":" + server.port();
            faults.add(new Fault("restart-lock-server", "kill the lock's redis-server and start it empty (data loss)",
                    server::restartEmpty));
            faults.add(new Fault("restore-lock-snapshot", "kill the lock's redis-server and start it from the snapshot"
                    + " saved at the previous injection (old token counters)", snapshots::restoreOlderSnapshot));
        } else {
            uri = uris.get(0);
            description = "redis lock on " + Endpoints.redacted(uri) + plaintextNote(opening, List.of(uri));
        }
        return lockOn(opening, uri, description, tokenNote, faults);
    }

    /**
     * The redis lock through Sentinels: a primary, {@code replicas} replicas and {@code sentinels}
     * Sentinels, each in a network namespace of its own ({@link NetworkLab}), with {@code nemesis}'s
     * faults (see {@link Nemesis}) drawn from {@code seed}.
     */
    static OpenedLock sentinelInNamespaces(Opening opening, int replicas, int sentinels, List<String> nemesisNames,
            long seed, java.util.function.Consumer<Nemesis> nemesisOut) {
        NetworkLab lab = Nemesis.openLab(opening);
        RedisSentinelLab cluster = Opening.started("a Redis primary with " + replicas + " replicas and " + sentinels
                + " Sentinels in network namespaces", "--redis-uri or FENCING_REDIS_URI",
                () -> RedisSentinelLab.launchIn(lab, replicas, sentinels));
        opening.closeLater(cluster);
        Nemesis nemesis = new Nemesis(lab, cluster, seed);
        nemesisOut.accept(nemesis);
        String description = "redis lock through " + sentinels + " Sentinels on a primary and " + replicas
                + " replicas, each in a network namespace of its own (" + cluster.uri() + ")";
        return lockOn(opening, cluster.uri(), description, "max(counter + 1, the server's TIME in microseconds) per"
                + " grant: a counter that comes back old or not at all is overtaken by the server's clock",
                nemesis.faults(nemesisNames));
    }

    private static OpenedLock lockOn(Opening opening, String uri, String description, String tokenNote,
            List<Fault> faults) {
        RedisClient client = client(opening, uri);
        // what the provider sets on a client of its own, plus a bounded connect
        client.setOptions(ClientOptions.builder().socketOptions(SocketOptions.builder().connectTimeout(opening.timeout)
                        .build()).disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .sslOptions(opening.tls.lettuce().orElseGet(SslOptions::create))
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2))).build());
        LockProvider locks;
        try {
            locks = RedisLockProvider.builder(client).clock(opening.clock).connectTimeout(opening.timeout).build();
        } catch (RuntimeException e) {
            throw Opening.unreachable("Redis for the lock at " + Endpoints.redacted(uri),
                    "--redis-uri or FENCING_REDIS_URI", e);
        }
        opening.closeLater(locks);
        return new OpenedLock(locks, description, tokenNote, faults);
    }

    private static final String REDLOCK_TOKENS = "per node max(counter + 1, the round's shared seed: this process's"
            + " clock in microseconds while within tokenClockTolerance of the node's TIME, else the node's own); the"
            + " largest of the majority, written back to a majority unless a majority already answered it";

    static OpenedLock redlock(Opening opening) {
        List<String> uris = opening.connections.redisLockUris();
        String description;
        List<Fault> faults = new ArrayList<>();
        String tokenNote = REDLOCK_TOKENS;
        if (uris.isEmpty()) {
            List<RedisTestServer> servers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                servers.add(started(opening, RedisTestServer.launch()));
            }
            uris = servers.stream().map(RedisTestServer::uri).toList();
            description = "redlock on 5 embedded redis-servers (ports "
                    + String.join(", ", servers.stream().map(server -> Integer.toString(server.port())).toList()) + ")";
            AtomicInteger next = new AtomicInteger();
            faults.add(new Fault("restart-redlock-node", "kill one Redlock node and start it empty (data loss), in turn",
                    () -> servers.get(next.getAndIncrement() % servers.size()).restartEmpty()));
        } else {
            description = "redlock on " + String.join(", ", uris.stream().map(Endpoints::redacted).toList())
                    + plaintextNote(opening, uris);
        }
        return redlockOn(opening, uris, description, tokenNote, faults);
    }

    /**
     * Redlock on {@code members} independent Redis masters, each in a network namespace of its own
     * ({@link NetworkLab}) with an append-only file fsynced on every write, and {@code nemesis}'s
     * faults (see {@link Nemesis}) drawn from {@code seed}.
     */
    static OpenedLock redlockInNamespaces(Opening opening, int members, List<String> nemesisNames, long seed,
            java.util.function.Consumer<Nemesis> nemesisOut) {
        NetworkLab lab = Nemesis.openLab(opening);
        RedisLabNodes nodes = Opening.started(members + " Redis masters in network namespaces",
                "--redis-uri (repeat it for each node) or FENCING_REDIS_URI", () -> RedisLabNodes.launchIn(lab, members));
        opening.closeLater(nodes);
        Nemesis nemesis = new Nemesis(lab, nodes, seed);
        nemesisOut.accept(nemesis);
        String description = "redlock on " + members + " independent Redis masters, each in a network namespace of its"
                + " own with an fsynced append-only file (" + String.join(", ", nodes.uris()) + ")";
        return redlockOn(opening, nodes.uris(), description, REDLOCK_TOKENS, nemesis.faults(nemesisNames));
    }

    private static OpenedLock redlockOn(Opening opening, List<String> uris, String description, String tokenNote,
            List<Fault> faults) {
        LockProvider locks;
        try {
            RedlockProvider.Builder builder = RedlockProvider.builder(uris).clock(opening.clock).connectTimeout(opening.timeout);
            opening.tls.lettuce().ifPresent(builder::sslOptions);
            locks = builder.build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--redis-uri: " + e.getMessage());
        } catch (RuntimeException e) {
            throw Opening.unreachable("the Redlock nodes " + uris.stream().map(Endpoints::redacted).toList(),
                    "--redis-uri (repeat it for each node) or FENCING_REDIS_URI", e);
        }
        opening.closeLater(locks);
        return new OpenedLock(locks, description, tokenNote, faults);
    }

    static OpenedStore store(Opening opening) {
        Optional<String> configured = opening.connections.redisStoreOrLockUri();
        if (configured.isEmpty()) {
            RedisTestServer server = started(opening, RedisTestServer.launch());
            return storeOn(opening, server.uri(), "redis store on its own embedded redis-server at " + server.host() + ":"
                    + server.port(), true);
        }
        return storeOn(opening, configured.get(), "redis store on " + Endpoints.redacted(configured.get())
                + plaintextNote(opening, List.of(configured.get())), false);
    }

    /**
     * The redis store on a {@code redis-server} of its own in {@code lab} (named {@code store1}),
     * so that clients in namespaces of their own reach it too.
     */
    static OpenedStore storeInLab(Opening opening, NetworkLab lab) {
        RedisLabNodes node = Opening.started("a redis-server for the store in the network lab",
                "--redis-store-uri or FENCING_REDIS_STORE_URI", () -> RedisLabNodes.launchIn(lab, 1, ClusterAddresses.STORE_PREFIX));
        opening.closeLater(node);
        String uri = node.uris().get(0);
        return storeOn(opening, uri, "redis store on a redis-server in the network lab (" + uri + ")", true);
    }

    private static OpenedStore storeOn(Opening opening, String uri, String description, boolean embedded) {
        RedisClient client = client(opening, uri);
        StatefulRedisConnection<String, String> connection;
        try {
            connection = client.connect();
        } catch (RedisException e) {
            throw Opening.unreachable("Redis for the store at " + Endpoints.redacted(uri),
                    "--redis-store-uri or FENCING_REDIS_STORE_URI", e);
        }
        opening.closeLater(connection);
        var redis = connection.sync();
        PlainStore plain = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                return Optional.ofNullable(redis.get(STORE_PREFIX + "plain:" + key));
            }

            @Override
            public void write(String key, String value) {
                redis.set(STORE_PREFIX + "plain:" + key, value);
            }
        };
        return new OpenedStore(policy -> RedisFencedStore.builder(connection).keyPrefix(STORE_PREFIX).policy(policy).build(),
                plain, description, embedded);
    }

    /**
     * A Lettuce client for {@code uri} whose connect and handshake give up after
     * the CLI's timeout (the URI's timeout bounds the handshake: 60 s by default).
     */
    private static RedisClient client(Opening opening, String uri) {
        RedisURI parsed = RedisURI.create(uri);
        parsed.setTimeout(opening.timeout);
        RedisClient client = RedisClient.create(parsed);
        client.setOptions(ClientOptions.builder().socketOptions(SocketOptions.builder().connectTimeout(opening.timeout)
                .build()).sslOptions(opening.tls.lettuce().orElseGet(SslOptions::create)).build());
        opening.closeLater(client::shutdown);
        return client;
    }

    /**
     * Says so when TLS files were given but a Redis URI is not {@code rediss://}: Lettuce then connects
     * in plaintext and the files are unused, which a user who gave {@code --tls-ca} must not miss.
     */
    private static String plaintextNote(Opening opening, List<String> uris) {
        boolean plaintext = uris.stream().anyMatch(u -> !u.trim().toLowerCase(Locale.ROOT).startsWith("rediss"));
        return opening.tls.any() && plaintext ? " (in plaintext: --tls-ca, --tls-cert and --tls-key apply to rediss://"
                + " URIs only)" : "";
    }

    private static RedisTestServer started(Opening opening, RedisTestServer server) {
        opening.closeLater(server::stop);
        return server;
    }
}
