package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.MavenArtifacts;
import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.SerializingProxy;
import dev.fencing.testkit.internal.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An S3-compatible server for tests: Adobe S3Mock run from its {@code exec} jar as a child
 * process (no Spring on the test class path), or an external endpoint.
 *
 * <p>Caveat, measured: S3Mock answers conditional puts ({@code If-Match}, {@code If-None-Match})
 * correctly one request at a time but does <em>not</em> arbitrate concurrent conditional puts
 * atomically. Race tests must serialize conditional requests per key in front of it, or run
 * against an atomic server given by {@code FENCING_S3_ENDPOINT}. Also measured: S3Mock 5.2's
 * {@code AbortMultipartUpload} deletes the object already stored at the key (real S3 does not).
 */
public final class S3TestServer implements TestServer {

    /** The region tests should configure their clients with. */
    public static final String REGION = "us-east-1";

    private final String endpoint;
    private final @Nullable ChildProcess process;
    private @Nullable SerializingProxy atomic;
    private @Nullable SerializingProxy ignoringConditions;

    private S3TestServer(String endpoint, @Nullable ChildProcess process) {
        this.endpoint = endpoint;
        this.process = process;
    }

    /**
     * An endpoint whose conditional writes are atomic: for S3Mock, a {@link SerializingProxy} in
     * front of it that lets one conditional request per object through at a time (started on
     * first use); for an external server, its own endpoint, which is assumed atomic like real S3.
     */
    public synchronized String atomicEndpoint() {
        if (process == null) {
            return endpoint;
        }
        if (atomic == null) {
            atomic = SerializingProxy.start(endpoint);
        }
        return atomic.endpoint();
    }

    /**
     * An endpoint that ignores conditional writes: a proxy in front of this server that drops
     * {@code If-Match} and {@code If-None-Match} from every request, as some S3-compatible servers
     * and gateways do (S3Proxy 2.6, older MinIO). On it the fence does nothing, and a server check
     * must say so. Started on first use.
     */
    public synchronized String conditionIgnoringEndpoint() {
        if (ignoringConditions == null) {
            ignoringConditions = SerializingProxy.startIgnoringConditions(endpoint);
        }
        return ignoringConditions.endpoint();
    }

    /** Starts S3Mock on a free port. */
    public static S3TestServer launch() {
        String version = Settings.version("s3mock.version");
        Path jar = MavenArtifacts.locate("com.adobe.testing", "s3mock", version, "exec");
        int port = Ports.free();
        Path root;
        try {
            root = Files.createTempDirectory("fencing-s3mock-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for S3Mock", e);
        }
        // every port S3Mock opens is chosen here: its defaults are fixed and collide between JVMs
        List<String> command = List.of(javaBinary(), "-Xmx384m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
                "--com.adobe.testing.s3mock.httpPort=" + port,
                "--server.port=" + Ports.free(),
                "--com.adobe.testing.s3mock.vectors.httpPort=" + Ports.free(),
                "--com.adobe.testing.s3mock.vectors.httpsPort=" + Ports.free(),
                "--com.adobe.testing.s3mock.store.root=" + root,
                "--spring.main.banner-mode=off");
        ChildProcess process = new ChildProcess("s3mock", command, port, Duration.ofSeconds(90));
        process.deleteAtExit(root);
        process.start();
        return new S3TestServer("http://127.0.0.1:" + port, process);
    }

    /** An external S3-compatible endpoint. */
    public static S3TestServer external(String endpoint) {
        return new S3TestServer(endpoint, null);
    }

    private static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The endpoint URL, for {@code S3Client.builder().endpointOverride(...)} with path-style access. */
    public String endpoint() {
        return endpoint;
    }

    @Override
    public String describe() {
        return "S3 at " + endpoint;
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
