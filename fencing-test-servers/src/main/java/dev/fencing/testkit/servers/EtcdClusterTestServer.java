package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.Ports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * An etcd cluster of several {@code etcd} child processes on loopback ports, for fault tests that
 * kill members: the leader, a follower, a majority. Not shared: each test that kills members
 * launches its own (about a second on a quiet machine) and closes it. Members keep their data
 * directories across kill and start, so a restarted member rejoins with its log.
 */
public final class EtcdClusterTestServer implements LabCluster {

    private final List<EtcdTestServer> members;

    private EtcdClusterTestServer(List<EtcdTestServer> members) {
        this.members = List.copyOf(members);
    }

    /** Starts {@code size} members (1 to 7) and waits until every one sees a leader. */
    public static EtcdClusterTestServer launch(int size) {
        return launch(size, null);
    }

    /**
     * Starts {@code size} members (1 to 7), each in a network namespace of its own in {@code lab}
     * named {@code etcd1, etcd2, ...} (etcd's usual ports 2379 and 2380 on the member's address),
     * and waits until every one sees a leader. Cut them apart with the lab's
     * {@link NetworkLab#cut}; the test JVM reaches them as {@link NetworkLab#HOST}.
     */
    public static EtcdClusterTestServer launchIn(NetworkLab lab, int size) {
        return launch(size, lab);
    }

    private static EtcdClusterTestServer launch(int size, @Nullable NetworkLab lab) {
        if (size < 1 || size > 7) {
            throw new IllegalArgumentException("an etcd test cluster has 1 to 7 members, got " + size);
        }
        List<EtcdTestServer.Member> allocated = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            allocated.add(lab == null ? EtcdTestServer.Member.allocate("m" + i) : EtcdTestServer.Member.inLab(lab, "etcd" + i));
        }
        String initialCluster = allocated.stream().map(m -> m.name + "=" + m.peerUrl()).collect(Collectors.joining(","));
        String clusterToken = "fencing-" + allocated.get(0).dataDir.getFileName();
        List<EtcdTestServer> members = new ArrayList<>();
        for (EtcdTestServer.Member member : allocated) {
            members.add(member.create(initialCluster, clusterToken));
        }
        EtcdClusterTestServer cluster = new EtcdClusterTestServer(members);
        try {
            members.forEach(EtcdTestServer::start);
            members.forEach(m -> m.awaitHealthy(Duration.ofSeconds(30)));
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** The members, in the order of their names {@code m1, m2, ...}. */
    @Override
    public List<EtcdTestServer> members() {
        return members;
    }

    /** Every member's client endpoint, for a client that fails over between them. */
    public List<String> endpoints() {
        return members.stream().map(EtcdTestServer::endpoint).toList();
    }

    /** The running member that says it is the leader now, if one does. */
    public Optional<EtcdTestServer> leader() {
        return members.stream().filter(EtcdTestServer::isRunning).filter(EtcdTestServer::isLeader).findFirst();
    }

    /** Raft elects one. */
    @Override
    public boolean electsLeader() {
        return true;
    }

    /** Waits up to {@code timeout} for a running member to be leader and returns it. */
    @Override
    public EtcdTestServer awaitLeader(Duration timeout) {
        AtomicReference<EtcdTestServer> found = new AtomicReference<>();
        Ports.awaitCondition("an etcd leader", timeout, () -> {
            leader().ifPresent(found::set);
            return found.get() != null;
        }, () -> "no etcd member was leader within " + timeout + ": " + describe());
        return Objects.requireNonNull(found.get(), "awaitCondition returned, so a leader was found");
    }

    /** A short description: the members and their endpoints. */
    @Override
    public String describe() {
        return "etcd cluster " + members.stream().map(EtcdTestServer::describe).collect(Collectors.joining("; "));
    }

    /** Kills every member; their data directories go when the JVM exits. */
    @Override
    public void close() {
        for (EtcdTestServer member : members) {
            try {
                member.kill();
            } catch (RuntimeException e) {
                // already gone
            }
        }
    }
}
