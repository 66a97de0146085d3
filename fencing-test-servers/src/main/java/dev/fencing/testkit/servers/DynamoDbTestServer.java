package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.NpmPackages;
import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.Settings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A DynamoDB-compatible server for tests: dynalite (Node.js), installed from npm into the
 * testkit's cache on first use and run as a child process, or an external endpoint.
 *
 * <p>Caveats, measured: dynalite's conditional Put/Update/Delete are atomic under concurrency,
 * but it has no {@code TransactWriteItems} and ignores {@code ReturnValuesOnConditionCheckFailure}.
 */
public final class DynamoDbTestServer implements TestServer {

    /** The region tests should configure their clients with. */
    public static final String REGION = "us-east-1";

    private final String endpoint;
    private final @Nullable ChildProcess process;

    private DynamoDbTestServer(String endpoint, @Nullable ChildProcess process) {
        this.endpoint = endpoint;
        this.process = process;
    }

    /** Installs dynalite if needed and starts it on a free port, in memory; tables are ACTIVE at once. */
    public static DynamoDbTestServer launch() {
        return launch(Duration.ZERO);
    }

    /**
     * As {@link #launch()}, but a new table stays {@code CREATING} (and a deleted or updated one
     * in its transitional state) for {@code tableDelay}, as on DynamoDB itself: for code that must
     * wait for a table.
     */
    public static DynamoDbTestServer launch(Duration tableDelay) {
        Path cli = installDynalite();
        int port = Ports.free();
        String delay = Long.toString(tableDelay.toMillis());
        List<String> command = List.of("node", "--require", survivingAbortedRequests().toString(), cli.toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port),
                "--createTableMs", delay, "--deleteTableMs", delay, "--updateTableMs", delay);
        ChildProcess process = new ChildProcess("dynalite", command, port, Duration.ofSeconds(30));
        process.start();
        return new DynamoDbTestServer("http://127.0.0.1:" + port, process);
    }

    /**
     * A script loaded before dynalite that keeps it serving when a client aborts a request in the
     * middle of its body (an interrupted thread, a killed connection): dynalite rethrows the
     * request's {@code ECONNRESET} ("aborted") from an event handler and the whole server exits,
     * where DynamoDB itself just drops that request. Any other uncaught error still ends it.
     */
    private static Path survivingAbortedRequests() {
        try {
            Path script = Files.createTempFile("dynalite-survive-aborted-", ".js");
            Files.writeString(script, "process.on('uncaughtException', (err) => {\n"
                    + "  if (err && err.code === 'ECONNRESET') {\n"
                    + "    console.error('dropped an aborted request: ' + err.message);\n"
                    + "    return;\n"
                    + "  }\n"
                    + "  console.error(err);\n"
                    + "  process.exit(1);\n"
                    + "});\n");
            script.toFile().deleteOnExit();
            return script;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the dynalite start-up script", e);
        }
    }

    /** An external DynamoDB-compatible endpoint. */
    public static DynamoDbTestServer external(String endpoint) {
        return new DynamoDbTestServer(endpoint, null);
    }

    private static Path installDynalite() {
        return NpmPackages.install("dynalite", Settings.version("dynalite.version"), "cli.js", Duration.ofMinutes(5),
                "set FENCING_DYNAMODB_ENDPOINT to a DynamoDB-compatible server");
    }

    /** The endpoint URL, for {@code DynamoDbClient.builder().endpointOverride(...)}. */
    public String endpoint() {
        return endpoint;
    }

    @Override
    public String describe() {
        return "DynamoDB at " + endpoint;
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

    /** Starts the server again, empty (dynalite runs in memory). */
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
