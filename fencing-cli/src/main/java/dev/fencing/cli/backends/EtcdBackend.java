package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.testkit.servers.EtcdClusterTestServer;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.NetworkLab;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * etcd for a CLI run: the etcd lock, on the endpoints the connection options name or on an
 * embedded {@code etcd} child process (Debian's {@code etcd-server}) — a 3-member cluster when the
 * torture test asks to restart the leader. A named server is first probed with a plain TCP
 * connect, so a dead address is exit 3 with the operating system's reason at once rather than
 * after the client library's retries.
 */
final class EtcdBackend {

    static final String RESTART_ETCD_LEADER = "restart-etcd-leader";

    private static final String ETCD_OPTIONS = "--etcd-endpoints or FENCING_ETCD_ENDPOINTS";

    /** How long a fault waits for an etcd leader, and for a restarted member to be healthy again. */
    private static final Duration ETCD_RECOVERY = Duration.ofSeconds(30);

    private EtcdBackend() {}

    /**
     * The etcd lock: on {@code --etcd-endpoints} (or {@code FENCING_ETCD_ENDPOINTS}), else on an
     * embedded etcd of {@code embeddedMembers} members (1 or 3).
     *
     */
    static OpenedLock lock(Opening opening, int embeddedMembers) {
        ConnectionOptions connections = opening.connections;
        Consumer<AutoCloseable> closeLater = opening::closeLater;
        List<String> endpoints = connections.etcdEndpoints();
        String description;
        List<Fault> faults;
        if (endpoints.isEmpty()) {
            if (embeddedMembers == 3) {
                EtcdClusterTestServer cluster = Opening.started("an embedded 3-member etcd cluster", ETCD_OPTIONS,
                        () -> EtcdClusterTestServer.launch(3));
                closeLater.accept(cluster);
                endpoints = cluster.endpoints();
                description = "etcd lock on an embedded 3-member etcd cluster (" + String.join(", ", endpoints) + ")";
                faults = List.of(new Fault(RESTART_ETCD_LEADER, "kill the etcd cluster's leader (SIGKILL), wait for the"
                        + " others to elect a new one, start the killed member again from its data",
                        () -> restartLeader(cluster)));
            } else {
                EtcdTestServer server = Opening.started("an embedded etcd", ETCD_OPTIONS, EtcdTestServer::launch);
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
            Opening.probe(Endpoints.etcdAddresses(endpoints), connections.timeout(),
                    "etcd for the lock at " + String.join(",", endpoints), ETCD_OPTIONS);
        }
        return lockOn(opening, endpoints, description, faults);
    }

    /**
     * The etcd lock on a cluster of {@code members} etcd processes, each in a network namespace of
     * its own ({@link NetworkLab}), with {@code nemesis}'s faults (see {@link Nemesis}) drawn from
     * {@code seed}.
     */
    static OpenedLock inNamespaces(Opening opening, int members, List<String> nemesisNames, long seed,
            Consumer<Nemesis> nemesisOut) {
        NetworkLab lab = Nemesis.openLab(opening);
        EtcdClusterTestServer cluster = Opening.started("a " + members + "-member etcd cluster in network namespaces",
                ETCD_OPTIONS, () -> EtcdClusterTestServer.launchIn(lab, members));
        opening.closeLater(cluster);
        Nemesis nemesis = new Nemesis(lab, cluster, seed);
        nemesisOut.accept(nemesis);
        List<String> endpoints = cluster.endpoints();
        String description = "etcd lock on a " + members + "-member etcd cluster, each member in a network namespace of"
                + " its own (" + String.join(", ", endpoints) + ")";
        return lockOn(opening, endpoints, description, nemesis.faults(nemesisNames));
    }

    private static OpenedLock lockOn(Opening opening, List<String> endpoints, String description, List<Fault> faults) {
        ConnectionOptions connections = opening.connections;
        Consumer<AutoCloseable> closeLater = opening::closeLater;
        EtcdLockProvider locks;
        try {
            EtcdLockProvider.Builder builder = EtcdLockProvider.builder(endpoints.toArray(String[]::new)).clock(opening.clock)
                    .requestTimeout(connections.timeout());
            if (endpoints.stream().anyMatch(endpoint -> endpoint.startsWith("https://"))) {
                connections.tls().grpc().ifPresent(builder::sslContext);
            }
            connections.etcdCredentials().ifPresent(user -> builder.credentials(user[0], user[1]));
            locks = builder.build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--etcd-endpoints: " + e.getMessage());
        } catch (LockUnavailableException e) {
            throw Opening.unreachable("etcd for the lock at " + String.join(",", endpoints),
                    ETCD_OPTIONS, e);
        }
        closeLater.accept(locks);
        return new OpenedLock(locks, description, "the lock key's create revision: etcd's revision, raised by every write"
                + " through the Raft log (global, so it jumps by the writes to other keys)", faults);
    }

    private static void restartLeader(EtcdClusterTestServer cluster) {
        EtcdTestServer leader = cluster.awaitLeader(ETCD_RECOVERY);
        leader.kill();
        cluster.awaitLeader(ETCD_RECOVERY); // a new leader among the others
        leader.start();
        leader.awaitHealthy(ETCD_RECOVERY);
    }
}
