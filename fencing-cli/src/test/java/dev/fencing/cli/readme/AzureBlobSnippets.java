package dev.fencing.cli.readme;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import dev.fencing.azure.blob.AzureBlobFencedStore;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import java.time.Duration;

/** The Java snippet of docs/azure-blob.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class AzureBlobSnippets {

    private AzureBlobSnippets() {}

    static void azureBlobQuickStart(String connectionString, LockProvider locks) throws InterruptedException {
        BlobContainerClient reports = new BlobServiceClientBuilder().connectionString(connectionString).buildClient()
                .getBlobContainerClient("reports");                 // the container must exist
        FencedStore store = AzureBlobFencedStore.builder(reports).keyPrefix("totals/")
                .requestTimeout(Duration.ofSeconds(5)).build();
        try (Lease lease = locks.acquire("reports/2026-11", LeaseOptions.ofTtl(Duration.ofSeconds(30)))) {
            store.write(lease.token(), "2026-11", "total=1234");    // the blob totals/2026-11
        }
    }
}
