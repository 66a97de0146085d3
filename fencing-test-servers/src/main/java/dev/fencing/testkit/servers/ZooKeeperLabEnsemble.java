package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * A ZooKeeper ensemble of real servers, each a child JVM ({@code QuorumPeerMain}, from this JVM's
 * class path) in a network namespace of its own in a {@link NetworkLab}, named {@code zk1, zk2,
 * ...}, on ZooKeeper's usual ports (clients 2181, quorum 2888, election 3888) of its address. Cut
 * a member from its leader with the lab's {@link NetworkLab#cut} while its clients still reach
 * it: a follower goes on answering reads from its own copy until it notices, after
 * {@code syncLimit × tickTime}.
 *
 * <p>{@code tickTime} is {@link ZooKeeperTestServer#TICK_TIME} (sessions of 2 to 20 s). Not
 * shared: each test launches its own (a few seconds) and closes it.
 */
public final class ZooKeeperLabEnsemble implements LabCluster {

    /** The client port of every member, on the member's own address. */
    public static final int CLIENT_PORT = 2181;

    private final List<ZooKeeperLabMember> members;

    private ZooKeeperLabEnsemble(List<ZooKeeperLabMember> members) {
        this.members = List.copyOf(members);
    }

    /**
     * Starts {@code size} members (1 to 7) in {@code lab} with a {@code syncLimit} of 5 ticks and
     * waits until every one serves clients.
     */
    public static ZooKeeperLabEnsemble launchIn(NetworkLab lab, int size) {
        return launchIn(lab, size, 5);
    }

    /**
     * Starts {@code size} members (1 to 7) in {@code lab} and waits until every one serves
     * clients. {@code syncLimit} (1 to 30 ticks of 1 s) is how long a follower cut from its leader
     * keeps answering from its own copy.
     *
     * @throws IllegalArgumentException if {@code size} or {@code syncLimit} is out of range
     */
    public static ZooKeeperLabEnsemble launchIn(NetworkLab lab, int size, int syncLimit) {
        if (size < 1 || size > 7) {
            throw new IllegalArgumentException("a ZooKeeper lab ensemble has 1 to 7 members, got " + size);
        }
        if (syncLimit < 1 || syncLimit > 30) {
            throw new IllegalArgumentException("syncLimit is 1 to 30 ticks, got " + syncLimit);
        }
        List<String> names = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (int i = 1; i <= size; i++) {
            names.add("zk" + i);
            addresses.add(lab.add("zk" + i));
        }
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < size; i++) {
            servers.append("server.").append(i + 1).append('=').append(addresses.get(i)).append(":2888:3888\n");
        }
        List<ZooKeeperLabMember> members = new ArrayList<>();
        try {
            Path root = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                    "fencing-testkit")), "zookeeper-lab-");
            for (int i = 0; i < size; i++) {
                Path dir = Files.createDirectories(root.resolve(names.get(i)));
                Files.createDirectories(dir.resolve("data"));
                Files.writeString(dir.resolve("data").resolve("myid"), Integer.toString(i + 1) + "\n");
                Path config = dir.resolve("zoo.cfg");
                Files.writeString(config, String.join("\n",
                        "tickTime=" + ZooKeeperTestServer.TICK_TIME.toMillis(),
                        "initLimit=10",
                        "syncLimit=" + syncLimit,
                        "dataDir=" + dir.resolve("data"),
                        "clientPortAddress=" + addresses.get(i),
                        "clientPort=" + CLIENT_PORT,
                        "admin.enableServer=false",
                        "4lw.commands.whitelist=srvr,cons,stat,ruok,mntr",
                        "standaloneEnabled=false",
                        "reconfigEnabled=false") + "\n" + servers);
                List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        "-Dzookeeper.admin.enableServer=false", "-cp", System.getProperty("java.class.path"),
                        "org.apache.zookeeper.server.quorum.QuorumPeerMain", config.toString());
                members.add(new ZooKeeperLabMember(names.get(i), addresses.get(i), lab.commandIn(names.get(i), command),
                        dir));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the configuration of a ZooKeeper lab ensemble", e);
        }
        ZooKeeperLabEnsemble ensemble = new ZooKeeperLabEnsemble(members);
        try {
            members.forEach(ZooKeeperLabMember::start);
            members.forEach(m -> m.awaitHealthy(Duration.ofSeconds(60)));
        } catch (RuntimeException e) {
            ensemble.close();
            throw e;
        }
        return ensemble;
    }

    @Override
    public List<ZooKeeperLabMember> members() {
        return members;
    }

    /** {@code address:2181} of every member, comma-separated: a client's connect string. */
    public String connectString() {
        return members.stream().map(ZooKeeperLabMember::connectString).collect(Collectors.joining(","));
    }

    /** Zab elects one. */
    @Override
    public boolean electsLeader() {
        return true;
    }

    /** Waits up to {@code timeout} for a running member that says it leads ({@code srvr}) and returns it. */
    @Override
    public ZooKeeperLabMember awaitLeader(Duration timeout) {
        AtomicReference<ZooKeeperLabMember> found = new AtomicReference<>();
        Ports.awaitCondition("a ZooKeeper leader", timeout, () -> {
            members.stream().filter(ZooKeeperLabMember::isRunning).filter(ZooKeeperLabMember::isLeader).findFirst()
                    .ifPresent(found::set);
            return found.get() != null;
        }, () -> "no ZooKeeper member was leader within " + timeout + ": " + describe());
        return Objects.requireNonNull(found.get(), "awaitCondition returned, so a leader was found");
    }

    @Override
    public String describe() {
        return "ZooKeeper ensemble " + members.stream().map(ZooKeeperLabMember::describe)
                .collect(Collectors.joining("; "));
    }

    /** Kills every member; their data directories go when the JVM exits. */
    @Override
    public void close() {
        for (ZooKeeperLabMember member : members) {
            try {
                member.kill();
            } catch (RuntimeException e) {
                // already gone
            }
        }
    }
}
