package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;

import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.testkit.servers.EtcdClusterTestServer;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The etcd and ZooKeeper locks of a CLI run: on the servers the connection options name, or on
 * embedded ones the CLI starts itself — an {@code etcd} child process (Debian's
 * {@code etcd-server}), or a 3-member etcd cluster when the torture test asks to restart the
 * leader; curator-test's in-JVM ZooKeeper server — with the faults that can be injected into those.
 *
 * <p>A server that was named is first probed with a plain TCP connect, so a dead address is exit
 * 3 with the operating system's reason at once rather than after the client library's retries.
 */
final class ConsensusLocks {

    static final String RESTART_ETCD_LEADER = "restart-etcd-leader";
    static final String EXPIRE_ZOOKEEPER_SESSION = "expire-zookeeper-session";

    private static final String ETCD_OPTIONS = "--etcd-endpoints or FENCING_ETCD_ENDPOINTS";
    private static final String ZOOKEEPER_OPTIONS = "--zookeeper-connect or FENCING_ZOOKEEPER_CONNECT";

    /** How long a fault waits for an etcd leader, and for a restarted member to be healthy again. */
    private static final Duration ETCD_RECOVERY = Duration.ofSeconds(30);

    /** A lock ready for the backend: the provider, where it lives, what its tokens are, its faults. */
    record Opened(LockProvider locks, String description, String tokenNote, List<Fault> faults) {}

    private ConsensusLocks() {}

    /**
     * The etcd lock: on {@code --etcd-endpoints} (or {@code FENCING_ETCD_ENDPOINTS}), else on an
     * embedded etcd of {@code embeddedMembers} members (1 or 3).
     *
     * @param closeLater told each server and client to close when the run ends, in the order opened
     */
    static Opened etcd(ConnectionOptions connections, int embeddedMembers, Consumer<AutoCloseable> closeLater) {
        List<String> endpoints = connections.etcdEndpoints();
        String description;
        List<Fault> faults;
        if (endpoints.isEmpty()) {
            if (embeddedMembers == 3) {
                EtcdClusterTestServer cluster = started("an embedded 3-member etcd cluster", ETCD_OPTIONS,
                        () -> EtcdClusterTestServer.launch(3));
                closeLater.accept(cluster);
                endpoints = cluster.endpoints();
                description = "etcd lock on an embedded 3-member etcd cluster (" + String.join(", ", endpoints) + ")";
                faults = List.of(new Fault(RESTART_ETCD_LEADER, "kill the etcd cluster's leader (SIGKILL), wait for the"
                        + " others to elect a new one, start the killed member again from its data",
                        () -> restartLeader(cluster)));
            } else {
                EtcdTestServer server = started("an embedded etcd", ETCD_OPTIONS, EtcdTestServer::launch);
                closeLater.accept(server::stop);
                endpoints = server.endpoints();
                description = "etcd lock on an embedded etcd at " + server.endpoint();
                faults = List.of(); // the torture test asks for a cluster when it wants the leader restarted
            }
        } else {
            description = "etcd lock on " + String.join(",", endpoints)
                    + (connections.tls().any() && endpoints.stream().anyMatch(e -> !e.startsWith("https://"))
                            ? " (in plaintext: --tls-ca, --tls-cert and --tls-key apply to https:// endpoints only)" : "");
            faults = List.of();
            probe(Endpoints.etcdAddresses(endpoints), connections.timeout(), "etcd for the lock at " + String.join(",", endpoints),
                    ETCD_OPTIONS);
        }
        EtcdLockProvider locks;
        try {
            EtcdLockProvider.Builder builder = EtcdLockProvider.builder(endpoints.toArray(String[]::new))
                    .requestTimeout(connections.timeout());
            if (endpoints.stream().anyMatch(endpoint -> endpoint.startsWith("https://"))) {
                connections.tls().grpc().ifPresent(builder::sslContext);
            }
            connections.etcdCredentials().ifPresent(user -> builder.credentials(user[0], user[1]));
            locks = builder.build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--etcd-endpoints: " + e.getMessage());
        } catch (LockUnavailableException e) {
            throw Backend.unreachable("etcd for the lock at " + String.join(",", endpoints),
                    ETCD_OPTIONS, e);
        }
        closeLater.accept(locks);
        return new Opened(locks, description, "the lock key's create revision: etcd's revision, raised by every write"
                + " through the Raft log (global, so it jumps by the writes to other keys)", faults);
    }

    private static void restartLeader(EtcdClusterTestServer cluster) {
        EtcdTestServer leader = cluster.awaitLeader(ETCD_RECOVERY);
        leader.kill();
        cluster.awaitLeader(ETCD_RECOVERY); // a new leader among the others
        leader.start();
        leader.awaitHealthy(ETCD_RECOVERY);
    }

    /**
     * The ZooKeeper lock: on {@code --zookeeper-connect} (or {@code FENCING_ZOOKEEPER_CONNECT}), else
     * on an embedded in-JVM server.
     */
    static Opened zooKeeper(ConnectionOptions connections, Consumer<AutoCloseable> closeLater) {
        Optional<String> configured = connections.zooKeeperConnect();
        String connect;
        String description;
        List<Fault> faults;
        if (configured.isEmpty()) {
            ZooKeeperTestServer server = started("an embedded ZooKeeper", ZOOKEEPER_OPTIONS, ZooKeeperTestServer::launch);
            closeLater.accept(server::stop);
            connect = server.connectString();
            description = "zookeeper lock on an embedded ZooKeeper at " + connect;
            ZooKeeperSessions sessions = new ZooKeeperSessions(Endpoints.zooKeeperAddresses(connect).get(0).getPort());
            faults = List.of(new Fault(EXPIRE_ZOOKEEPER_SESSION, "end the lock client's ZooKeeper session on the server,"
                    + " as a session timeout does: the holders' znodes are deleted, their leases lost",
                    sessions::expireAll));
        } else {
            connect = configured.get();
            description = "zookeeper lock on " + connect + (connections.tls().any() && !connections.zooKeeperTls()
                    ? " (in plaintext: --tls-ca, --tls-cert and --tls-key apply to ZooKeeper with --zookeeper-tls only)"
                    : "");
            faults = List.of();
            probe(Endpoints.zooKeeperAddresses(connect), connections.timeout(), "ZooKeeper for the lock at " + connect,
                    ZOOKEEPER_OPTIONS);
        }
        ZooKeeperLockProvider locks;
        try {
            ZooKeeperLockProvider.Builder builder = ZooKeeperLockProvider.builder(connect)
                    .connectionTimeout(connections.timeout());
            if (connections.zooKeeperTls()) {
                builder.zkClientConfig(connections.tls().zooKeeper());
            }
            connections.zooKeeperCredentials().ifPresent(user -> {
                String digest = user[0] + ":" + user[1];
                builder.authorization("digest", digest.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                try {
                    builder.acl(List.of(new org.apache.zookeeper.data.ACL(org.apache.zookeeper.ZooDefs.Perms.ALL,
                            new org.apache.zookeeper.data.Id("digest", org.apache.zookeeper.server.auth
                                    .DigestAuthenticationProvider.generateDigest(digest)))));
                } catch (java.security.NoSuchAlgorithmException e) {
                    throw new IllegalStateException("the JVM has no SHA-1 for ZooKeeper's digest", e);
                }
            });
            locks = builder.build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--zookeeper-connect: " + e.getMessage());
        } catch (LockUnavailableException e) {
            throw Backend.unreachable("ZooKeeper for the lock at " + connect,
                    ZOOKEEPER_OPTIONS, e);
        }
        closeLater.accept(locks);
        return new Opened(locks, description, "the holder znode's czxid: the zxid of the transaction that created it"
                + " (global, with the leader's epoch in the high 32 bits)", faults);
    }

    private static void probe(List<InetSocketAddress> addresses, Duration timeout, String what, String howToPoint) {
        try {
            TcpProbe.anyAccepts(addresses, timeout);
        } catch (IOException e) {
            throw Backend.unreachable(what, howToPoint, e);
        }
    }

    /** Starts an embedded server; one that cannot start (no etcd binary, say) is reported like an unreachable one. */
    private static <S> S started(String what, String howToPoint, Supplier<S> launch) {
        try {
            return launch.get();
        } catch (RuntimeException e) {
            throw new CliException(ExitCode.UNREACHABLE, what + " could not be started: " + Reasons.of(e)
                    + ". Point the CLI at a running server instead with " + howToPoint + ".");
        }
    }
}
