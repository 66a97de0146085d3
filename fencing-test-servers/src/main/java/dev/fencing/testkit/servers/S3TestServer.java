package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.MavenArtifacts;
import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.SerializingProxy;
import dev.fencing.testkit.internal.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

    /**
     * Starts S3Mock on a free port. S3Mock takes seconds to open its ports (11 s on a busy machine),
     * and a port free when chosen may be taken meanwhile by a server of another test JVM: S3Mock
     * then exits, and the port answers for that other server. So the start is accepted only when
     * S3Mock itself answers there (a {@code ListBuckets}); else it is stopped and started again on
     * other ports, up to three times.
     */
    public static S3TestServer launch() {
        IllegalStateException last = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            int port = Ports.free();
            ChildProcess process = launchOn(port);
            try {
                process.start();
                if (process.isAlive() && answersAsS3(port)) {
                    return new S3TestServer("http://127.0.0.1:" + port, process);
                }
                last = new IllegalStateException("S3Mock started on port " + port + " but "
                        + (process.isAlive() ? "the port does not answer as S3Mock" : "exited") + "; see " + process.log());
            } catch (IllegalStateException e) {
                last = e;
            }
            process.kill();
        }
        throw new IllegalStateException("S3Mock did not start in 3 attempts on fresh ports", last);
    }

    private static ChildProcess launchOn(int port) {
        String version = Settings.version("s3mock.version");
        Path jar = MavenArtifacts.locate("com.adobe.testing", "s3mock", version, "exec");
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
        return process;
    }

    /** Whether {@code GET /} on the port answers S3's {@code ListBuckets}: S3Mock, not a server that took the port. */
    private static boolean answersAsS3(int port) {
        try {
            HttpResponse<String> reply = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
                    .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                            .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
            return reply.statusCode() == 200 && reply.body().contains("ListAllMyBucketsResult");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking S3Mock on port " + port, e);
        }
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
