package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.NetworkLab;
import dev.fencing.testkit.servers.ZooKeeperLabEnsemble;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * ZooKeeper for a CLI run: the zookeeper lock, on the ensemble the connection options name or on
 * curator-test's in-JVM server, with the session expiry the torture test injects. A named server
 * is first probed with a plain TCP connect, so a dead address is exit 3 with the operating
 * system's reason at once rather than after the client library's retries.
 */
final class ZooKeeperBackend {

    static final String EXPIRE_ZOOKEEPER_SESSION = "expire-zookeeper-session";

    private static final String ZOOKEEPER_OPTIONS = "--zookeeper-connect or FENCING_ZOOKEEPER_CONNECT";

    private ZooKeeperBackend() {}

    /**
     * The ZooKeeper lock: on {@code --zookeeper-connect} (or {@code FENCING_ZOOKEEPER_CONNECT}), else
     * on an embedded in-JVM server.
     */
    static OpenedLock lock(Opening opening) {
        ConnectionOptions connections = opening.connections;
        Consumer<AutoCloseable> closeLater = opening::closeLater;
        Optional<String> configured = connections.zooKeeperConnect();
        String connect;
        String description;
        List<Fault> faults;
        if (configured.isEmpty()) {
            ZooKeeperTestServer server = Opening.started("an embedded ZooKeeper", ZOOKEEPER_OPTIONS,
                    ZooKeeperTestServer::launch);
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
            Opening.probe(Endpoints.zooKeeperAddresses(connect), connections.timeout(),
                    "ZooKeeper for the lock at " + connect, ZOOKEEPER_OPTIONS);
        }
        return lockOn(opening, connect, description, faults);
    }

    /**
     * The ZooKeeper lock on an ensemble of {@code members} servers, each in a network namespace of
     * its own ({@link NetworkLab}), with {@code nemesis}'s faults (see {@link Nemesis}) drawn from
     * {@code seed}.
     */
    static OpenedLock inNamespaces(Opening opening, int members, List<String> nemesisNames, long seed,
            Consumer<Nemesis> nemesisOut) {
        NetworkLab lab = Nemesis.openLab(opening);
        ZooKeeperLabEnsemble ensemble = Opening.started("a " + members + "-member ZooKeeper ensemble in network"
                + " namespaces", ZOOKEEPER_OPTIONS, () -> ZooKeeperLabEnsemble.launchIn(lab, members));
        opening.closeLater(ensemble);
        Nemesis nemesis = new Nemesis(lab, ensemble, seed);
        nemesisOut.accept(nemesis);
        String description = "zookeeper lock on a " + members + "-member ZooKeeper ensemble, each member in a network"
                + " namespace of its own (" + ensemble.connectString() + ")";
        return lockOn(opening, ensemble.connectString(), description, nemesis.faults(nemesisNames));
    }

    private static OpenedLock lockOn(Opening opening, String connect, String description, List<Fault> faults) {
        ConnectionOptions connections = opening.connections;
        Consumer<AutoCloseable> closeLater = opening::closeLater;
        ZooKeeperLockProvider locks;
        try {
            ZooKeeperLockProvider.Builder builder = ZooKeeperLockProvider.builder(connect).clock(opening.clock)
                    .connectTimeout(connections.timeout());
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
            throw Opening.unreachable("ZooKeeper for the lock at " + connect,
                    ZOOKEEPER_OPTIONS, e);
        }
        closeLater.accept(locks);
        return new OpenedLock(locks, description, "the holder znode's czxid: the zxid of the transaction that created it"
                + " (global, with the leader's epoch in the high 32 bits)", faults);
    }
}
