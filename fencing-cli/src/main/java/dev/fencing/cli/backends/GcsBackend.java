package dev.fencing.cli.backends;

import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.cloud.NoCredentials;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.BucketInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.gcs.GcsFencedStore;
import dev.fencing.testkit.servers.GcsTestServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Google Cloud Storage for a CLI run: the gcs store, on {@code --gcs-endpoint} or Google's
 * storage-testbench from {@code ../shared/gcs-testbench} when it is there.
 */
final class GcsBackend {

    static final String BUCKET = "fencing-cli";
    private static final String HOW_TO_POINT = "--gcs-endpoint or FENCING_GCS_ENDPOINT";

    private GcsBackend() {}

    /**
     * Whether the store authenticates with Google's default credentials: on Google's own endpoint,
     * or wherever {@code GOOGLE_APPLICATION_CREDENTIALS} names a key; an emulator gets none.
     */
    static boolean usesGoogleCredentials(String endpoint) {
        return URI.create(endpoint).getHost().endsWith("googleapis.com")
                || Optional.ofNullable(System.getenv("GOOGLE_APPLICATION_CREDENTIALS")).filter(v -> !v.isBlank()).isPresent();
    }

    static OpenedStore store(Opening opening) {
        Optional<String> configured = opening.connections.gcsEndpoint();
        String endpoint;
        String description;
        if (configured.isEmpty()) {
            Optional<String> why = GcsTestServer.whyUnavailable();
            if (why.isPresent()) {
                throw new CliException(ExitCode.UNREACHABLE, "the gcs store has no server (give --gcs-endpoint URL): " + why.get() + ".");
            }
            GcsTestServer server;
            try {
                server = GcsTestServer.launch();
            } catch (GcsTestServer.Unavailable e) {
                throw new CliException(ExitCode.UNREACHABLE, "the gcs store has no server (give --gcs-endpoint URL): " + e.getMessage() + ".");
            }
            opening.closeLater(server::stop);
            endpoint = server.endpoint();
            description = "gcs store on an embedded storage-testbench at " + endpoint;
        } else {
            endpoint = configured.get();
            description = "gcs store on " + endpoint;
        }
        int millis = Math.toIntExact(opening.timeout.toMillis());
        HttpTransportOptions.Builder transport = HttpTransportOptions.newBuilder().setConnectTimeout(millis)
                .setReadTimeout(millis);
        if (opening.tls.any()) {
            javax.net.ssl.SSLSocketFactory sockets = opening.tls.sslContext().getSocketFactory();
            transport.setHttpTransportFactory(() -> new NetHttpTransport.Builder().setSslSocketFactory(sockets).build());
        }
        StorageOptions.Builder options = StorageOptions.http().setHost(endpoint)
                .setProjectId(Optional.ofNullable(System.getenv("GOOGLE_CLOUD_PROJECT")).filter(v -> !v.isBlank())
                        .orElse(GcsTestServer.PROJECT))
                .setTransportOptions(transport.build());
        if (!usesGoogleCredentials(endpoint)) {
            options.setCredentials(NoCredentials.getInstance()); // an emulator: no credentials to find
        }
        Storage storage = options.build().getService();
        opening.closeLater(storage::close);
        try {
            URI uri = URI.create(endpoint);
            int port = uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
            TcpProbe.anyAccepts(List.of(InetSocketAddress.createUnresolved(uri.getHost(), port)), opening.timeout);
            if (storage.get(BUCKET) == null) {
                if (opening.readOnly) {
                    return OpenedStore.notSetUp(description, configured.isEmpty(), "GCS bucket " + BUCKET + " is missing");
                }
                try {
                    storage.create(BucketInfo.of(BUCKET));
                } catch (StorageException e) {
                    if (e.getCode() != 409) { // created by another run in between
                        throw e;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            throw Opening.unreachable("GCS at " + endpoint, HOW_TO_POINT, e);
        }
        PlainStore plain = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                byte[] bytes;
                try {
                    bytes = storage.readAllBytes(BlobId.of(BUCKET, "plain/" + key));
                } catch (StorageException e) {
                    if (e.getCode() == 404) {
                        return Optional.empty();
                    }
                    throw e;
                }
                return Optional.of(new String(bytes, StandardCharsets.UTF_8));
            }

            @Override
            public void write(String key, String value) {
                storage.create(BlobInfo.newBuilder(BlobId.of(BUCKET, "plain/" + key)).build(),
                        value.getBytes(StandardCharsets.UTF_8));
            }
        };
        return new OpenedStore(policy -> GcsFencedStore.builder(storage, BUCKET).keyPrefix("fenced/").policy(policy)
                .requestTimeout(opening.timeout).build(), plain, description, configured.isEmpty());
    }
}
