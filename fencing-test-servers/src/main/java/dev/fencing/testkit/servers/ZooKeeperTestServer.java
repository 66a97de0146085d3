package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * A ZooKeeper server for tests: curator-test's in-JVM {@link TestingServer} on a free loopback
 * port with a temporary data directory, or an external server or ensemble. {@link #launchTls}
 * runs one in a child JVM instead, so that its TLS settings (system properties in ZooKeeper)
 * stay out of the tests' JVM.
 */
public final class ZooKeeperTestServer implements TestServer {

    /**
     * The {@code tickTime} of the servers this class starts (curator-test's {@code TestingServer}
     * takes 1 s, and {@link #launchTls} writes it): what a provider's {@code serverTickTime} states
     * for them. An external server's is whatever its operator set.
     */
    public static final Duration TICK_TIME = Duration.ofSeconds(1);

    private final String connectString;
    private final @Nullable TestingServer server;
    private final @Nullable ChildProcess process;
    private final int securePort;

    private ZooKeeperTestServer(String connectString, @Nullable TestingServer server) {
        this(connectString, server, null, 0);
    }

    private ZooKeeperTestServer(String connectString, @Nullable TestingServer server, @Nullable ChildProcess process,
            int securePort) {
        this.connectString = connectString;
        this.server = server;
        this.process = process;
        this.securePort = securePort;
    }

    /**
     * Starts a standalone server in a child JVM (ZooKeeper's {@code ZooKeeperServerMain}, from
     * this JVM's class path) with Netty, a plaintext {@link #connectString() client port} and a
     * {@link #secureConnectString() secure client port} that serves the server certificate of
     * {@code certificates} and requires a client certificate of its authority
     * ({@code ssl.clientAuth=need}). Digest authentication is ZooKeeper's default; no ACL is set.
     * {@code tickTime} is 1 s: sessions of 2 to 20 s.
     */
    public static ZooKeeperTestServer launchTls(TestCertificates certificates) {
        int port = Ports.free();
        int securePort = Ports.free();
        try {
            Path dir = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                    "fencing-testkit")), "zookeeper-tls-");
            String password = new String(certificates.password());
            Path config = dir.resolve("zoo.cfg");
            Files.writeString(config, String.join("\n",
                    "tickTime=1000",
                    "dataDir=" + dir.resolve("data"),
                    "clientPortAddress=127.0.0.1",
                    "clientPort=" + port,
                    "secureClientPortAddress=127.0.0.1",
                    "secureClientPort=" + securePort,
                    "admin.enableServer=false",
                    "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory",
                    "ssl.keyStore.location=" + certificates.serverKeyStore(),
                    "ssl.keyStore.password=" + password,
                    "ssl.keyStore.type=PKCS12",
                    "ssl.trustStore.location=" + certificates.trustStore(),
                    "ssl.trustStore.password=" + password,
                    "ssl.trustStore.type=PKCS12",
                    "ssl.clientAuth=need") + "\n");
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx128m", "-Dzookeeper.admin.enableServer=false", "-cp", System.getProperty("java.class.path"),
                    "org.apache.zookeeper.server.ZooKeeperServerMain", config.toString());
            ChildProcess child = new ChildProcess("zookeeper-tls", command, securePort, Duration.ofSeconds(30));
            child.deleteAtExit(dir);
            child.start();
            Ports.awaitCondition("ZooKeeper at 127.0.0.1:" + port, Duration.ofSeconds(30), () -> Ports.isOpen(port),
                    () -> "ZooKeeper's plaintext port " + port + " did not open; see " + child.log());
            return new ZooKeeperTestServer("127.0.0.1:" + port, null, child, securePort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the configuration of a TLS ZooKeeper", e);
        }
    }

    /**
     * {@code 127.0.0.1:securePort} of a server from {@link #launchTls} (an address its certificate
     * names), for clients with {@code zookeeper.client.secure=true}.
     *
     * @throws IllegalStateException if the server has no secure port
     */
    public String secureConnectString() {
        if (securePort == 0) {
            throw new IllegalStateException(describe() + " has no secure port: start it with ZooKeeperTestServer.launchTls");
        }
        return "127.0.0.1:" + securePort;
    }

    /** Starts a new in-JVM server on a free port. */
    public static ZooKeeperTestServer launch() {
        try {
            TestingServer server = new TestingServer(-1, true);
            return new ZooKeeperTestServer(server.getConnectString(), server);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start curator-test's ZooKeeper TestingServer; set"
                    + " FENCING_ZOOKEEPER_CONNECT to a server (host:port) instead", e);
        }
    }

    /** An external server or ensemble at {@code connectString} ({@code host:port,host:port}). */
    public static ZooKeeperTestServer external(String connectString) {
        return new ZooKeeperTestServer(connectString, null);
    }

    /** {@code host:port}, for ZooKeeper and Curator clients. */
    public String connectString() {
        return connectString;
    }

    @Override
    public String describe() {
        return "ZooKeeper at " + connectString;
    }

    @Override
    public boolean isManaged() {
        return server != null || process != null;
    }

    /** Stops the server; its data directory stays, so {@link #start()} brings back every znode. */
    @Override
    public void stop() {
        if (process != null) {
            process.stop();
            return;
        }
        try {
            managed("stop").stop();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The in-JVM server cannot be SIGKILLed: stops it, keeping its data (what a crash with synced logs leaves). */
    @Override
    public void kill() {
        stop();
    }

    @Override
    public void start() {
        if (process != null) {
            process.start();
            return;
        }
        try {
            managed("start").restart();
        } catch (Exception e) {
            throw new IllegalStateException("cannot restart " + describe(), e);
        }
    }

    /**
     * Ends {@code victim}'s session on the server, as a session timeout does: a second handle on
     * the same session connects and closes it, so the server deletes the session's ephemeral
     * znodes, and the victim learns on its next contact that its session expired. Works on an
     * external server too.
     *
     * @throws IllegalStateException if the second handle does not connect within 10 s
     */
    public void expireSession(ZooKeeper victim) {
        CountDownLatch connected = new CountDownLatch(1);
        try {
            ZooKeeper twin = new ZooKeeper(connectString, 10_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            }, victim.getSessionId(), victim.getSessionPasswd());
            try {
                if (!connected.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a second handle on session 0x" + Long.toHexString(victim.getSessionId())
                            + " did not connect to " + describe() + " within 10 s");
                }
            } finally {
                twin.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a second handle on " + describe(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while expiring a session on " + describe(), e);
        }
    }

    /**
     * A file-level backup of the stopped server's data directory (snapshots and transaction
     * logs), as an operator's disk snapshot would take it, for {@link #restore}.
     *
     * @throws IllegalStateException if the server is not managed here
     */
    public java.nio.file.Path backUp() {
        java.io.File dataDir = managed("backUp").getTempDirectory();
        try {
            java.nio.file.Path backup = java.nio.file.Files.createTempDirectory("fencing-zookeeper-backup-");
            DataDirectories.copy(dataDir.toPath(), backup);
            DataDirectories.deleteOnExit(backup);
            return backup;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot back up " + dataDir, e);
        }
    }

    /**
     * Replaces the stopped server's data with a {@link #backUp()} taken earlier: old state comes
     * back, as after restoring a disk snapshot. {@link #start()} it afterwards.
     */
    public void restore(java.nio.file.Path backup) {
        java.io.File dataDir = managed("restore").getTempDirectory();
        try {
            DataDirectories.delete(dataDir.toPath());
            DataDirectories.copy(backup, dataDir.toPath());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restore " + dataDir + " from " + backup, e);
        }
    }

    private TestingServer managed(String fault) {
        if (server == null) {
            throw ManagedOnly.refuse(this, fault);
        }
        return server;
    }

    @Override
    public String toString() {
        return describe();
    }
}
