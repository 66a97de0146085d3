package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.Resp;
import dev.fencing.testkit.internal.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import redis.embedded.core.ExecutableProvider;

/**
 * A Redis server for tests: a {@code redis-server} child process on a loopback port, without
 * persistence (a kill or restart loses every key), or an external server.
 *
 * <p>The binary is {@code FENCING_REDIS_SERVER} if set, else the one bundled in
 * {@code com.github.codemonstur:embedded-redis} (Redis 6.2).
 */
public final class RedisTestServer implements TestServer {

    private final String host;
    private final int port;
    private final int tlsPort;
    private final @Nullable ChildProcess process;

    private RedisTestServer(String host, int port, int tlsPort, @Nullable ChildProcess process) {
        this.host = host;
        this.port = port;
        this.tlsPort = tlsPort;
        this.process = process;
    }

    /** Starts a new server on a free port, with the extra {@code redis-server} arguments given. */
    public static RedisTestServer launch(String... extraArguments) {
        return launch(0, Ports.free(), List.of(extraArguments));
    }

    /**
     * Starts a new server that also serves TLS on {@link #tlsPort()} with the server certificate of
     * {@code certificates}, asking clients for a certificate of the same authority
     * ({@code tls-auth-clients optional}: a client without one still connects, one with another
     * authority's is refused). The plaintext port stays open on loopback for the testkit's own
     * commands ({@link #command}, {@link #flushAll}) as the default user; give the clients under
     * test {@link #tlsUri()}. {@code extraArguments} are more {@code redis-server} arguments, for
     * example {@code "--user", "app", "on", ">secret", "~app:*", "+@all"} for an ACL user.
     */
    public static RedisTestServer launchTls(TestCertificates certificates, String... extraArguments) {
        return launch(Ports.free(), Ports.free(), tlsArguments(certificates, extraArguments));
    }

    /**
     * A Redis Cluster node: its cluster bus listens on the announced port + 10000 (the TLS port
     * under {@code tls-cluster}), so that port must exist and be free.
     */
    static RedisTestServer launchClusterNode(@Nullable TestCertificates certificates, String... extraArguments) {
        int busOffset = 10_000;
        if (certificates == null) {
            return launch(0, Ports.freeWithCompanion(busOffset), List.of(extraArguments));
        }
        return launch(Ports.freeWithCompanion(busOffset), Ports.free(), tlsArguments(certificates, extraArguments));
    }

    private static List<String> tlsArguments(TestCertificates certificates, String... extraArguments) {
        List<String> tls = new ArrayList<>(List.of("--tls-cert-file", certificates.serverCertificate().toString(),
                "--tls-key-file", certificates.serverKey().toString(),
                "--tls-ca-cert-file", certificates.caCertificate().toString(),
                "--tls-auth-clients", "optional"));
        tls.addAll(List.of(extraArguments));
        return tls;
    }

    private static RedisTestServer launch(int tlsPort, int port, List<String> extraArguments) {
        List<String> command = new ArrayList<>(List.of(binary().toString(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--protected-mode", "no", "--daemonize", "no", "--dir", System.getProperty("java.io.tmpdir")));
        if (tlsPort != 0) {
            command.addAll(List.of("--tls-port", Integer.toString(tlsPort)));
        }
        command.addAll(extraArguments);
        ChildProcess process = new ChildProcess("redis", command, port, Duration.ofSeconds(20));
        process.start();
        return new RedisTestServer("127.0.0.1", port, tlsPort, process);
    }

    /** An external server at {@code uri} ({@code redis://host:port}). */
    public static RedisTestServer external(String uri) {
        URI parsed = URI.create(uri);
        return new RedisTestServer(parsed.getHost(), parsed.getPort() < 0 ? 6379 : parsed.getPort(), 0, null);
    }

    static Path binary() {
        return Settings.env("FENCING_REDIS_SERVER").map(Path::of).orElseGet(() -> {
            try {
                return ExecutableProvider.newJarResourceProvider().get().toPath();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot unpack the redis-server bundled in embedded-redis;"
                        + " set FENCING_REDIS_SERVER to a redis-server binary or FENCING_REDIS_URI to a server", e);
            }
        });
    }

    /** {@code redis://host:port}, for Lettuce and other clients. */
    public String uri() {
        return "redis://" + host + ":" + port;
    }

    /**
     * {@code rediss://127.0.0.1:tlsPort} (an address the test certificate names), for a server
     * started with {@link #launchTls}.
     *
     * @throws IllegalStateException if the server serves no TLS
     */
    public String tlsUri() {
        return "rediss://" + host + ":" + tlsPort();
    }

    /**
     * The TLS port of a server started with {@link #launchTls}.
     *
     * @throws IllegalStateException if the server serves no TLS
     */
    public int tlsPort() {
        if (tlsPort == 0) {
            throw new IllegalStateException(describe() + " serves no TLS: start it with RedisTestServer.launchTls");
        }
        return tlsPort;
    }

    /** The host. */
    public String host() {
        return host;
    }

    /** The port. */
    public int port() {
        return port;
    }

    /** Sends one command with a throwaway connection; see {@link Resp#command}. */
    public @Nullable Object command(String... args) {
        return Resp.command(host, port, args);
    }

    /** Deletes every key. Works on external servers too. */
    public void flushAll() {
        command("FLUSHALL");
    }

    @Override
    public String describe() {
        return "Redis at " + uri();
    }

    @Override
    public boolean isManaged() {
        return process != null;
    }

    @Override
    public void stop() {
        managed("stop").stop();
    }

    @Override
    public void kill() {
        managed("kill").kill();
    }

    @Override
    public void start() {
        managed("start").start();
    }

    /** Kills the server and starts an empty one on the same port: the data loss of a crash without persistence. */
    public void restartEmpty() {
        ChildProcess child = managed("restart");
        child.kill();
        child.start();
    }

    /** Freezes the server (SIGSTOP): connections stay open, nothing answers. */
    public void pause() {
        managed("pause").pause();
    }

    /** Thaws a paused server. */
    public void resume() {
        managed("resume").resume();
    }

    private ChildProcess managed(String fault) {
        if (process == null) {
            throw ManagedOnly.refuse(this, fault);
        }
        return process;
    }

    @Override
    public String toString() {
        return describe();
    }
}
