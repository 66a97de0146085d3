package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.Ports;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * A ZooKeeper ensemble for fault tests: curator-test's in-JVM {@link TestingCluster} of
 * {@code n} servers on free loopback ports, each with a temporary data directory. Always
 * launched by the testkit (a fault test kills its members), one per test class; close it after.
 *
 * <p>{@link #launchPartitionable} routes every member's link to every other member's quorum port
 * through a {@link PartitionProxy} of its own, so that a test can {@link #cut} one follower off
 * from its leader while the follower's clients stay connected to it: each member's {@code zoo.cfg}
 * names the others at its own proxies (curator-test applies a member's custom properties after the
 * {@code server.N} lines it writes). Leader election talks directly.
 */
public final class ZooKeeperClusterTestServer implements AutoCloseable {

    private final TestingCluster cluster;
    /** The proxy member {@code from} reaches member {@code to}'s quorum port through, keyed "from>to" by server id. */
    private final Map<String, PartitionProxy> links;

    private ZooKeeperClusterTestServer(TestingCluster cluster, Map<String, PartitionProxy> links) {
        this.cluster = cluster;
        this.links = links;
    }

    static {
        // a member that cannot bind its port must fail its start, not end the test JVM (ZooKeeper's
        // embedded server calls System.exit(2) by default: seen when two picked ports coincided)
        // (by reflection: the class's SpotBugs annotation is not on this class path, and javac warns of it)
        try {
            Class<?> utils = Class.forName("org.apache.zookeeper.util.ServiceUtils");
            utils.getMethod("setSystemExitProcedure", java.util.function.Consumer.class)
                    .invoke(null, utils.getField("LOG_ONLY").get(null));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Starts an ensemble of {@code servers} (3 or 5) and returns once it has a quorum to start with. */
    public static ZooKeeperClusterTestServer launch(int servers) {
        if (servers != 3 && servers != 5) {
            throw new IllegalArgumentException("servers must be 3 or 5 (an odd ensemble that survives a loss), got "
                    + servers);
        }
        // curator-test picks each port free and lets it go before its server binds it, so two may
        // coincide (seen: a member's client port on another's election port): pick again
        for (int attempt = 1; ; attempt++) {
            List<InstanceSpec> specs = new ArrayList<>();
            for (int i = 0; i < servers; i++) {
                specs.add(InstanceSpec.newInstanceSpec());
            }
            Set<Integer> ports = new HashSet<>();
            boolean distinct = true;
            for (InstanceSpec member : specs) {
                distinct &= ports.add(member.getPort()) & ports.add(member.getElectionPort())
                        & ports.add(member.getQuorumPort());
            }
            if (distinct) {
                return start(new TestingCluster(specs), Map.of());
            }
            if (attempt == 5) {
                throw new IllegalStateException("five picks of the ensemble's ports coincided, the last: " + ports);
            }
        }
    }

    /**
     * Starts an ensemble of 3 whose quorum links pass through proxies that {@link #cut} can
     * partition. A follower notices a silent leader after {@code syncLimit × tickTime}; the
     * servers accept session timeouts from one tick to 20 ticks.
     *
     * @param tickTimeMillis ZooKeeper's {@code tickTime}, from 100 to 2000 ms
     * @param syncLimit ZooKeeper's {@code syncLimit} in ticks, from 2 to 100
     */
    public static ZooKeeperClusterTestServer launchPartitionable(int tickTimeMillis, int syncLimit) {
        return launchPartitionable(tickTimeMillis, syncLimit, member -> Map.of());
    }

    /**
     * As {@link #launchPartitionable(int, int)}, with settings of each member's own (by its index, 0 to
     * 2, in {@link #members()}' order), e.g. a {@code maxSessionTimeout} that differs between members, as
     * a rolling change of the servers' settings leaves them.
     */
    public static ZooKeeperClusterTestServer launchPartitionable(int tickTimeMillis, int syncLimit,
            IntFunction<Map<String, String>> memberSettings) {
        if (tickTimeMillis < 100 || tickTimeMillis > 2000 || syncLimit < 2 || syncLimit > 100) {
            throw new IllegalArgumentException("tickTimeMillis must be 100 to 2000 and syncLimit 2 to 100, got "
                    + tickTimeMillis + " and " + syncLimit);
        }
        // Every port is picked free and then let go before its server binds it, so two may coincide (seen:
        // a proxy on a member's election port, "Client and election port must be different!"): try again.
        for (int attempt = 1; ; attempt++) {
            try {
                return tryLaunchPartitionable(tickTimeMillis, syncLimit, memberSettings);
            } catch (IllegalStateException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static ZooKeeperClusterTestServer tryLaunchPartitionable(int tickTimeMillis, int syncLimit,
            IntFunction<Map<String, String>> memberSettings) {
        List<InstanceSpec> plain = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            plain.add(InstanceSpec.newInstanceSpec());
        }
        Map<String, PartitionProxy> links = new HashMap<>();
        List<InstanceSpec> specs = new ArrayList<>();
        for (InstanceSpec member : plain) {
            Map<String, Object> properties = new HashMap<>();
            properties.put("syncLimit", Integer.toString(syncLimit));
            properties.putAll(memberSettings.apply(plain.indexOf(member)));
            for (InstanceSpec other : plain) {
                if (other != member) {
                    PartitionProxy link = PartitionProxy.start("127.0.0.1", other.getQuorumPort());
                    links.put(member.getServerId() + ">" + other.getServerId(), link);
                    properties.put("server." + other.getServerId(), String.format("127.0.0.1:%d:%d;127.0.0.1:%d",
                            link.port(), other.getElectionPort(), other.getPort()));
                }
            }
            specs.add(new InstanceSpec(member.getDataDirectory(), member.getPort(), member.getElectionPort(),
                    member.getQuorumPort(), true, member.getServerId(), tickTimeMillis, -1, properties, "127.0.0.1"));
        }
        Set<Integer> ports = new HashSet<>();
        boolean distinct = links.values().stream().allMatch(link -> ports.add(link.port()));
        for (InstanceSpec member : plain) {
            distinct &= ports.add(member.getPort()) & ports.add(member.getElectionPort())
                    & ports.add(member.getQuorumPort());
        }
        if (!distinct) {
            links.values().forEach(PartitionProxy::close);
            throw new IllegalStateException("two of the ensemble's picked ports coincide: " + ports);
        }
        return start(new TestingCluster(specs), links);
    }

    private static ZooKeeperClusterTestServer start(TestingCluster cluster, Map<String, PartitionProxy> links) {
        try {
            cluster.start();
        } catch (Exception e) {
            links.values().forEach(PartitionProxy::close);
            try {
                cluster.close();
            } catch (IOException | RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw new IllegalStateException("cannot start curator-test's ZooKeeper TestingCluster of "
                    + cluster.getInstances().size(), e);
        }
        return new ZooKeeperClusterTestServer(cluster, links);
    }

    /** {@code host:port} of one member alone: a client that must stay on that member. */
    public String connectString(InstanceSpec member) {
        return "127.0.0.1:" + member.getPort();
    }

    /** Every member. */
    public List<InstanceSpec> members() {
        return List.copyOf(cluster.getInstances());
    }

    /**
     * Cuts {@code follower}'s quorum link to {@code leader} (of a {@link #launchPartitionable}
     * ensemble): no byte passes either way, and the connection stays open, so the follower keeps
     * serving its clients from its own copy until it notices, {@code syncLimit × tickTime} later,
     * and the leader stops hearing of the follower's sessions at once.
     *
     * @throws IllegalStateException if the ensemble was not launched partitionable
     */
    public void cut(InstanceSpec follower, InstanceSpec leader) {
        link(follower, leader).cut();
    }

    /** Lets every cut link pass again (connections open during a cut are closed, and made again). */
    public void heal() {
        links.values().forEach(PartitionProxy::heal);
    }

    private PartitionProxy link(InstanceSpec from, InstanceSpec to) {
        PartitionProxy link = links.get(from.getServerId() + ">" + to.getServerId());
        if (link == null) {
            throw new IllegalStateException("no proxied link from member " + from.getServerId() + " to member "
                    + to.getServerId() + ": launch the ensemble with launchPartitionable");
        }
        return link;
    }

    /** The member {@code client} is connected to now, if any. */
    public Optional<InstanceSpec> connectedTo(org.apache.zookeeper.ZooKeeper client) {
        try {
            return Optional.ofNullable(cluster.findConnectionInstance(client));
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /**
     * What {@code member} says it is now ({@code leader}, {@code follower}), or empty while it
     * serves no clients (electing, or cut off from its leader and noticed).
     */
    public Optional<String> mode(InstanceSpec member) {
        for (String line : srvr(member).split("\n")) {
            if (line.startsWith("Mode: ")) {
                return Optional.of(line.substring("Mode: ".length()).trim());
            }
        }
        return Optional.empty();
    }

    /** {@code host:port,host:port,...} of every member. */
    public String connectString() {
        return cluster.getConnectString();
    }

    /**
     * The member that leads now, asked of each with the {@code srvr} four-letter word (allowed by
     * ZooKeeper's default whitelist); empty while an election runs.
     */
    public Optional<InstanceSpec> leader() {
        for (InstanceSpec member : cluster.getInstances()) {
            if (srvr(member).contains("Mode: leader")) {
                return Optional.of(member);
            }
        }
        return Optional.empty();
    }

    /** Kills a member; the others elect a new leader if it led. */
    public void kill(InstanceSpec member) {
        try {
            cluster.killServer(member);
        } catch (Exception e) {
            throw new IllegalStateException("cannot kill ZooKeeper member " + member, e);
        }
    }

    /** Starts a killed member again with its data. */
    public void restart(InstanceSpec member) {
        try {
            cluster.restartServer(member);
        } catch (Exception e) {
            throw new IllegalStateException("cannot restart ZooKeeper member " + member, e);
        }
    }

    /** Kills every member: the ensemble is down, each member's data directory stays. */
    public void killAll() {
        members().forEach(this::kill);
    }

    /** Starts every killed member again with its data; returns once a member leads. */
    public void restartAll() {
        members().forEach(this::restart);
        Ports.awaitCondition(toString(), Duration.ofSeconds(30), () -> leader().isPresent(),
                () -> this + " elected no leader within 30 s of a restart");
    }

    /**
     * A file-level backup of every member's data directory (snapshots, transaction logs and the
     * epoch files), as an operator's disk snapshots of a stopped ensemble would take it, for
     * {@link #restore}. {@link #killAll()} first.
     */
    public Path backUp() {
        try {
            Path backup = Files.createTempDirectory("fencing-zookeeper-ensemble-backup-");
            DataDirectories.deleteOnExit(backup);
            for (InstanceSpec member : members()) {
                DataDirectories.copy(member.getDataDirectory().toPath(), backup.resolve("member-" + member.getServerId()));
            }
            return backup;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot back up " + this, e);
        }
    }

    /**
     * Replaces every killed member's data with a {@link #backUp()} taken earlier: old state comes
     * back. {@link #restartAll()} afterwards.
     *
     * @param keepEpochs whether each member keeps its current {@code acceptedEpoch} and
     *     {@code currentEpoch} files (only the snapshots and logs come back), so the next leader's
     *     epoch is above every epoch used before; otherwise the epochs come back too, and the next
     *     leader may reuse an epoch that was used after the backup
     */
    public void restore(Path backup, boolean keepEpochs) {
        try {
            for (InstanceSpec member : members()) {
                Path data = member.getDataDirectory().toPath();
                Map<Path, byte[]> epochs = new HashMap<>();
                if (keepEpochs) {
                    try (Stream<Path> files = Files.walk(data)) {
                        for (Path file : (Iterable<Path>) files::iterator) {
                            String name = file.getFileName().toString();
                            if (name.equals("acceptedEpoch") || name.equals("currentEpoch")) {
                                epochs.put(data.relativize(file), Files.readAllBytes(file));
                            }
                        }
                    }
                }
                DataDirectories.delete(data);
                DataDirectories.copy(backup.resolve("member-" + member.getServerId()), data);
                for (Map.Entry<Path, byte[]> epoch : epochs.entrySet()) {
                    Files.write(data.resolve(epoch.getKey().toString()), epoch.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore " + this + " from " + backup, e);
        }
    }

    private static String srvr(InstanceSpec member) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", member.getPort()), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return ""; // a killed member, or one between roles
        }
    }

    @Override
    public void close() {
        try {
            links.values().forEach(PartitionProxy::close);
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "ZooKeeper ensemble at " + connectString();
    }
}
