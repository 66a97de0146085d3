package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.Ports;
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
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A Google Cloud Storage server for tests: Google's {@code storage-testbench} (the fake the official
 * client libraries test against), run from {@code ../shared/gcs-testbench} beside the repository
 * as a child process (Python; Debian's {@code python3-flask python3-grpcio python3-protobuf
 * python3-requests-toolbelt python3-crc32c gunicorn}), in memory; or an external endpoint
 * ({@code FENCING_GCS_ENDPOINT}, e.g. the testbench's container image where Docker runs).
 *
 * <p>The testbench is third-party code and is not part of this repository: {@link #locate()}
 * finds it from the system property {@code fencing.gcs.testbench} or the environment variable
 * {@code FENCING_GCS_TESTBENCH} (its folder, or its {@code run} script), else at
 * {@code shared/gcs-testbench} in the working directory or one of its parents.
 *
 * <p>Clients use the JSON API at {@link #endpoint()} with no credentials, project
 * {@link #PROJECT}. Measured on testbench 0.45.0: {@code ifGenerationMatch} is enforced with 412,
 * atomically under racing writers; every write gets a new generation; object names the real
 * service refuses ({@code .}, a line feed) are stored; it answers a precondition failure with no
 * {@code reason}.
 */
public final class GcsTestServer implements TestServer {

    /** The project id clients name (the testbench accepts any). */
    public static final String PROJECT = "test-project";

    /** What {@code run} prints, and exits 3 with, when a Debian package it needs is missing. */
    private static final String MISSING = "gcs-testbench: missing";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final String endpoint;
    private final @Nullable ChildProcess process;

    private GcsTestServer(String endpoint, @Nullable ChildProcess process) {
        this.endpoint = endpoint;
        this.process = process;
    }

    /**
     * The testbench's {@code run} script, if it can be found: the property
     * {@code fencing.gcs.testbench} or the variable {@code FENCING_GCS_TESTBENCH} (a folder or the
     * script), else {@code shared/gcs-testbench/run} in the working directory or a parent of it.
     */
    public static Optional<Path> locate() {
        Optional<String> named = Optional.ofNullable(System.getProperty("fencing.gcs.testbench"))
                .filter(s -> !s.isBlank()).or(() -> Settings.env("FENCING_GCS_TESTBENCH"));
        if (named.isPresent()) {
            Path path = Path.of(named.get()).toAbsolutePath();
            Path run = Files.isDirectory(path) ? path.resolve("run") : path;
            return Files.isRegularFile(run) ? Optional.of(run) : Optional.empty();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path run = dir.resolve("shared").resolve("gcs-testbench").resolve("run");
            if (Files.isRegularFile(run)) {
                return Optional.of(run);
            }
        }
        return Optional.empty();
    }

    /** Why no GCS server can be had here, or empty when one can: an endpoint is named or the testbench is found. */
    public static Optional<String> whyUnavailable() {
        if (Settings.env("FENCING_GCS_ENDPOINT").isPresent() || locate().isPresent()) {
            return Optional.empty();
        }
        return Optional.of(howToGetOne("no GCS server: FENCING_GCS_ENDPOINT is not set and no testbench was found"
                + " (fencing.gcs.testbench, FENCING_GCS_TESTBENCH, or shared/gcs-testbench beside the repository)"));
    }

    /** {@code problem}, then how to get a GCS server for the tests. */
    static String howToGetOne(String problem) {
        return problem + ". Point FENCING_GCS_ENDPOINT at a GCS JSON API (e.g. the storage-testbench container:"
                + " docker run -p 9000:9000 gcr.io/cloud-devrel-public-resources/storage-testbench, then"
                + " FENCING_GCS_ENDPOINT=http://127.0.0.1:9000), or FENCING_GCS_TESTBENCH at a storage-testbench"
                + " folder with a run script";
    }

    /**
     * Starts the testbench on a free port and waits until {@code GET /} answers {@code OK}.
     *
     * @throws Unavailable if it cannot be found, or its {@code run} script reports a missing package
     */
    public static GcsTestServer launch() {
        Path run = locate().orElseThrow(() -> new Unavailable(whyUnavailable().orElse("no testbench")));
        int port = Ports.free();
        ChildProcess process = new ChildProcess("gcs-testbench", List.of("bash", run.toString(), Integer.toString(port)),
                port, START_TIMEOUT);
        try {
            process.start();
        } catch (IllegalStateException e) {
            String log = readLog(process.log());
            if (log.contains(MISSING)) {
                throw new Unavailable(howToGetOne(log.strip().replace('\n', ' ')));
            }
            throw e;
        }
        String endpoint = "http://127.0.0.1:" + port;
        // the port opens before the worker has loaded the app: wait for the app itself to answer
        Ports.awaitCondition("gcs-testbench", START_TIMEOUT, () -> answersOk(endpoint),
                () -> "gcs-testbench did not answer GET / with OK within " + START_TIMEOUT + "; see " + process.log());
        return new GcsTestServer(endpoint, process);
    }

    /** An external GCS JSON API endpoint, e.g. {@code http://127.0.0.1:9000}. */
    public static GcsTestServer external(String endpoint) {
        return new GcsTestServer(endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint, null);
    }

    private static String readLog(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean answersOk(String endpoint) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(endpoint + "/"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 && response.body().strip().equals("OK");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The JSON API endpoint: {@code http://127.0.0.1:<port>}, the host for {@code StorageOptions.setHost}. */
    public String endpoint() {
        return endpoint;
    }

    /**
     * Creates bucket {@code name} in {@link #PROJECT} through the JSON API (no client library
     * needed); an existing bucket is left as it is.
     */
    public void createBucket(String name) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(endpoint + "/storage/v1/b?project=" + PROJECT)).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + name + "\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200 && response.statusCode() != 409) {
                throw new IllegalStateException("creating bucket '" + name + "' on " + describe() + " answered "
                        + response.statusCode() + ": " + response.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create bucket '" + name + "' on " + describe(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating bucket '" + name + "'", e);
        }
    }

    @Override
    public String describe() {
        return "GCS at " + endpoint;
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

    /** Starts the testbench again, empty (it keeps everything in memory). */
    @Override
    public void start() {
        ChildProcess managed = managed("start");
        managed.start();
        Ports.awaitCondition("gcs-testbench", START_TIMEOUT, () -> answersOk(endpoint),
                () -> "gcs-testbench did not answer GET / with OK within " + START_TIMEOUT + "; see " + managed.log());
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

    /** No GCS server can be had on this machine; the message says why and how to get one. */
    public static final class Unavailable extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }
}
