package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * A ZooKeeper ensemble for fault tests: curator-test's in-JVM {@link TestingCluster} of
 * {@code n} servers on free loopback ports, each with a temporary data directory. Always
 * launched by the testkit (a fault test kills its members), one per test class; close it after.
 */
public final class ZooKeeperClusterTestServer implements AutoCloseable {

    private final TestingCluster cluster;

    private ZooKeeperClusterTestServer(TestingCluster cluster) {
        this.cluster = cluster;
    }

    /** Starts an ensemble of {@code servers} (3 or 5) and returns once it has a quorum to start with. */
    public static ZooKeeperClusterTestServer launch(int servers) {
        if (servers != 3 && servers != 5) {
            throw new IllegalArgumentException("servers must be 3 or 5 (an odd ensemble that survives a loss), got "
                    + servers);
        }
        TestingCluster cluster = new TestingCluster(servers);
        try {
            cluster.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start curator-test's ZooKeeper TestingCluster of " + servers, e);
        }
        return new ZooKeeperClusterTestServer(cluster);
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
