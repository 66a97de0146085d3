package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * A ZooKeeper server for tests: curator-test's in-JVM {@link TestingServer} on a free loopback
 * port with a temporary data directory, or an external server or ensemble.
 */
public final class ZooKeeperTestServer implements TestServer {

    private final String connectString;
    private final @Nullable TestingServer server;

    private ZooKeeperTestServer(String connectString, @Nullable TestingServer server) {
        this.connectString = connectString;
        this.server = server;
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
        return server != null;
    }

    /** Stops the server; its data directory stays, so {@link #start()} brings back every znode. */
    @Override
    public void stop() {
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
