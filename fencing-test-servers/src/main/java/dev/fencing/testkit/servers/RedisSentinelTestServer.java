package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.Resp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Sentinel for tests: one {@code redis-server --sentinel} child process monitoring one
 * master under a name, with a quorum of one. Started with {@link #launchTls}, it serves clients
 * over TLS and reaches the master over TLS ({@code tls-replication yes}), so a client following it
 * gets the master's TLS address. Its configuration file (Sentinel rewrites it) lives in a scratch
 * folder deleted when the JVM exits.
 */
public final class RedisSentinelTestServer {

    private final String masterName;
    private final int port;
    private final int tlsPort;
    private final ChildProcess process;

    private RedisSentinelTestServer(String masterName, int port, int tlsPort, ChildProcess process) {
        this.masterName = masterName;
        this.port = port;
        this.tlsPort = tlsPort;
        this.process = process;
    }

    /**
     * Starts a Sentinel that serves TLS with the server certificate of {@code certificates} and
     * monitors {@code master} (started with {@link RedisTestServer#launchTls} and the same
     * certificates) on its TLS port as {@code masterName}; returns once it reports the master.
     * {@code extraConfiguration} lines are added to its configuration file (ACL {@code user} lines,
     * say); it reaches the master as the default user.
     */
    public static RedisSentinelTestServer launchTls(TestCertificates certificates, RedisTestServer master,
            String masterName, String... extraConfiguration) {
        int port = Ports.free();
        int tlsPort = Ports.free();
        try {
            Path folder = Files.createTempDirectory("fencing-redis-sentinel-");
            DataDirectories.deleteOnExit(folder);
            Path configuration = folder.resolve("sentinel.conf");
            StringBuilder text = new StringBuilder()
                    .append("port ").append(port).append('\n')
                    .append("bind 127.0.0.1\n")
                    .append("protected-mode no\n")
                    .append("dir ").append(folder).append('\n')
                    .append("tls-port ").append(tlsPort).append('\n')
                    .append("tls-cert-file ").append(certificates.serverCertificate()).append('\n')
                    .append("tls-key-file ").append(certificates.serverKey()).append('\n')
                    .append("tls-ca-cert-file ").append(certificates.caCertificate()).append('\n')
                    .append("tls-auth-clients optional\n")
                    .append("tls-replication yes\n")
                    .append("sentinel monitor ").append(masterName).append(' ').append(master.host()).append(' ')
                    .append(master.tlsPort()).append(" 1\n");
            for (String line : extraConfiguration) {
                text.append(line).append('\n');
            }
            Files.writeString(configuration, text.toString());
            ChildProcess process = new ChildProcess("redis-sentinel", List.of(RedisTestServer.binary().toString(),
                    configuration.toString(), "--sentinel"), port, Duration.ofSeconds(20));
            process.start();
            RedisSentinelTestServer sentinel = new RedisSentinelTestServer(masterName, port, tlsPort, process);
            sentinel.awaitMaster(master);
            return sentinel;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the Sentinel's configuration", e);
        }
    }

    private void awaitMaster(RedisTestServer master) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        @Nullable Object last = null;
        while (System.nanoTime() < deadline) {
            last = Resp.command("127.0.0.1", port, "SENTINEL", "get-master-addr-by-name", masterName);
            if (last instanceof List<?> address && address.size() == 2
                    && String.valueOf(master.tlsPort()).equals(String.valueOf(address.get(1)))) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the Sentinel", e);
            }
        }
        throw new IllegalStateException("the Sentinel did not report master " + masterName + " in 20 s; last: " + last);
    }

    /** The name the master is monitored under. */
    public String masterName() {
        return masterName;
    }

    /** The Sentinel's TLS port. */
    public int tlsPort() {
        return tlsPort;
    }

    /**
     * {@code rediss-sentinel://127.0.0.1:tlsPort#masterName}, with {@code credentials}
     * ({@code user:password@}, or empty) for the master.
     */
    public String tlsUri(String credentials) {
        return "rediss-sentinel://" + credentials + "127.0.0.1:" + tlsPort + "#" + masterName;
    }

    /** Stops the Sentinel. */
    public void stop() {
        process.stop();
    }

    @Override
    public String toString() {
        return "Redis Sentinel at 127.0.0.1:" + port + " (TLS " + tlsPort + ") for " + masterName;
    }
}
