package dev.fencing.azure.blob;

import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import dev.fencing.testkit.servers.AzuriteTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.UUID;

/**
 * Clients of the testkit's Azurite (or the server {@code FENCING_AZURE_BLOB_ENDPOINT} names), each
 * a separate {@link BlobServiceClient} with an HTTP client of its own, as a separate process has.
 */
final class Blobs {

    private Blobs() {}

    /** A client of the shared server. */
    static BlobServiceClient service(HttpPipelinePolicy... policies) {
        return service(TestServers.azureBlob().endpoint(), policies);
    }

    /** A client of the server at {@code endpoint} (account included). */
    static BlobServiceClient service(String endpoint, HttpPipelinePolicy... policies) {
        BlobServiceClientBuilder builder = new BlobServiceClientBuilder().endpoint(endpoint)
                .credential(new StorageSharedKeyCredential(AzuriteTestServer.ACCOUNT, AzuriteTestServer.KEY));
        for (HttpPipelinePolicy policy : policies) {
            builder.addPolicy(policy);
        }
        return builder.buildClient();
    }

    /** The shared server's endpoint as reached through a proxy listening at {@code proxy} ({@code http://host:port}). */
    static String through(String proxy) {
        return proxy + URI.create(TestServers.azureBlob().endpoint()).getPath();
    }

    /** A new, empty container on the shared server. */
    static String newContainer() {
        String name = "fencing-" + UUID.randomUUID().toString().substring(0, 8);
        service().createBlobContainer(name);
        return name;
    }

    /** {@code name} on a client of its own of the shared server. */
    static BlobContainerClient container(String name, HttpPipelinePolicy... policies) {
        return service(policies).getBlobContainerClient(name);
    }
}
