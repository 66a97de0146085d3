package dev.fencing.cli.backends;

import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import dev.fencing.azure.blob.AzureBlobFencedStore;
import dev.fencing.testkit.servers.AzuriteTestServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Azure Blob Storage for a CLI run: the azure-blob store, on {@code --azure-blob-endpoint} or an embedded Azurite. */
final class AzureBlobBackend {

    static final String CONTAINER = "fencing-cli";

    private AzureBlobBackend() {}

    static OpenedStore store(Opening opening) {
        Optional<String> configured = opening.connections.azureBlobEndpoint();
        String endpoint;
        String description;
        if (configured.isEmpty()) {
            AzuriteTestServer server = AzuriteTestServer.launch();
            opening.closeLater(server::stop);
            endpoint = server.endpoint();
            description = "azure-blob store on an embedded Azurite at " + endpoint;
        } else {
            endpoint = configured.get();
            description = "azure-blob store on " + endpoint;
        }
        BlobServiceClientBuilder builder = new BlobServiceClientBuilder();
        if (opening.tls.any()) {
            builder.httpClient(new JdkHttpClientBuilder(HttpClient.newBuilder()
                    .sslContext(opening.tls.sslContext())).build());
        }
        Duration timeout = opening.timeout;
        BlobContainerClient container = builder.endpoint(endpoint)
                .credential(credential(endpoint))
                // three quick tries, so a refused port is reported as refused within the CLI's bound, not
                // as a timeout after the SDK's 4 s back-off
                .retryOptions(new RequestRetryOptions(RetryPolicyType.EXPONENTIAL, 3, timeout,
                        Duration.ofMillis(100), Duration.ofMillis(500), null))
                .buildClient().getBlobContainerClient(CONTAINER);
        try {
            // the JDK's HTTP client reports a refused port as a bare ConnectException; the OS's own reason is clearer
            URI uri = URI.create(endpoint);
            int port = uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
            TcpProbe.anyAccepts(List.of(InetSocketAddress.createUnresolved(uri.getHost(), port)), timeout);
            if (!opening.readOnly) {
                container.createIfNotExistsWithResponse(null, timeout, Context.NONE);
            } else if (!container.existsWithResponse(timeout, Context.NONE).getValue()) {
                return OpenedStore.notSetUp(description, configured.isEmpty(),
                        "Azure Blob Storage container " + CONTAINER + " is missing");
            }
        } catch (IOException | RuntimeException e) {
            throw Opening.unreachable("Azure Blob Storage at " + endpoint,
                    "--azure-blob-endpoint or FENCING_AZURE_BLOB_ENDPOINT", e);
        }
        PlainStore plain = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                try {
                    return Optional.of(container.getBlobClient("plain/" + key).downloadContent().toString());
                } catch (BlobStorageException e) {
                    if (e.getStatusCode() == 404) {
                        return Optional.empty();
                    }
                    throw e;
                }
            }

            @Override
            public void write(String key, String value) {
                container.getBlobClient("plain/" + key).upload(BinaryData.fromString(value), true);
            }
        };
        return new OpenedStore(policy -> AzureBlobFencedStore.builder(container).keyPrefix("fenced/").policy(policy)
                .requestTimeout(timeout).build(), plain, description, configured.isEmpty());
    }

    /**
     * The account and key for {@code endpoint}: {@code AZURE_STORAGE_ACCOUNT} and
     * {@code AZURE_STORAGE_KEY}, else the account in the endpoint's path (Azurite's form) or its
     * host's first label (Azure's), with Azurite's public development key.
     */
    private static StorageSharedKeyCredential credential(String endpoint) {
        URI uri = URI.create(endpoint);
        String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("^/+", "");
        String fromUrl = !path.isEmpty() ? path.split("/")[0] : uri.getHost().split("\\.")[0];
        String account = Optional.ofNullable(System.getenv("AZURE_STORAGE_ACCOUNT")).filter(v -> !v.isBlank())
                .orElse(fromUrl);
        String key = Optional.ofNullable(System.getenv("AZURE_STORAGE_KEY")).filter(v -> !v.isBlank())
                .orElse(AzuriteTestServer.KEY);
        return new StorageSharedKeyCredential(account, key);
    }
}
