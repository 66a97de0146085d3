package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.ChildProcess;
import dev.fencing.testkit.internal.NpmPackages;
import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An Azure Blob Storage-compatible server for tests: Azurite's blob service (Node.js), installed
 * from npm into the testkit's cache on first use and run as a child process, in memory, or an
 * external endpoint.
 *
 * <p>Clients authenticate with Azurite's well-known development account ({@link #ACCOUNT},
 * {@link #KEY}); {@link #connectionString()} carries both. Caveats, measured on Azurite 3.37: its
 * conditional uploads ({@code If-Match}, {@code If-None-Match: *}) are right one at a time and let
 * exactly one of racing writers win; its ETags are unique per write (a new ETag even for identical
 * bytes); it answers metadata names in the case they were written.
 */
public final class AzuriteTestServer implements TestServer {

    /** Azurite's development storage account. */
    public static final String ACCOUNT = "devstoreaccount1";

    /** The key of {@link #ACCOUNT}: public, the same in every Azurite. */
    public static final String KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private final String endpoint;
    private final @Nullable ChildProcess process;

    private AzuriteTestServer(String endpoint, @Nullable ChildProcess process) {
        this.endpoint = endpoint;
        this.process = process;
    }

    /** Installs Azurite if needed and starts its blob service on a free port, in memory. */
    public static AzuriteTestServer launch() {
        Path main = installAzurite();
        int port = Ports.free();
        List<String> command = List.of("node", main.toString(), "--blobHost", "127.0.0.1", "--blobPort",
                Integer.toString(port), "--inMemoryPersistence", "--skipApiVersionCheck", "--loose", "--silent");
        ChildProcess process = new ChildProcess("azurite", command, port, Duration.ofSeconds(30));
        process.start();
        return new AzuriteTestServer("http://127.0.0.1:" + port + "/" + ACCOUNT, process);
    }

    /**
     * An external blob endpoint, e.g. {@code http://127.0.0.1:10000/devstoreaccount1}, reached with
     * Azurite's development account and key.
     */
    public static AzuriteTestServer external(String endpoint) {
        return new AzuriteTestServer(endpoint, null);
    }

    private static Path installAzurite() {
        return NpmPackages.install("azurite", Settings.version("azurite.version"), "dist/src/blob/main.js",
                Duration.ofMinutes(10), "set FENCING_AZURE_BLOB_ENDPOINT to an Azure Blob-compatible server");
    }

    /** The blob endpoint URL, account included: {@code http://127.0.0.1:<port>/devstoreaccount1}. */
    public String endpoint() {
        return endpoint;
    }

    /** A connection string for the Azure SDK: the development account, its key and {@link #endpoint()}. */
    public String connectionString() {
        return "DefaultEndpointsProtocol=http;AccountName=" + ACCOUNT + ";AccountKey=" + KEY + ";BlobEndpoint="
                + endpoint + ";";
    }

    @Override
    public String describe() {
        return "Azure Blob Storage at " + endpoint;
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

    /** Starts the server again, empty (Azurite runs in memory). */
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
