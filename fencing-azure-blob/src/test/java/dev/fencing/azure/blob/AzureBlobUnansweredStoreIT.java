package dev.fencing.azure.blob;

import com.azure.storage.blob.BlobContainerClient;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.UnansweredStoreContract;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link AzureBlobFencedStore} through a link that stops answering: the toolkit's exceptions, never the SDK's timeout. */
class AzureBlobUnansweredStoreIT extends UnansweredStoreContract {

    private static PartitionProxy link;
    private static BlobContainerClient container;

    @BeforeAll
    static void start() {
        URI server = URI.create(TestServers.azureBlob().endpoint());
        link = PartitionProxy.start(server.getHost(), server.getPort());
        container = Blobs.service(Blobs.through("http://127.0.0.1:" + link.port()))
                .getBlobContainerClient(Blobs.newContainer());
    }

    @AfterAll
    static void stop() {
        link.close();
    }

    @Override
    protected FencedStore createStoreThroughLink(FencingListener listener) {
        return AzureBlobFencedStore.builder(container).keyPrefix("unanswered/").requestTimeout(Duration.ofSeconds(1))
                .listener(listener).build();
    }

    @Override
    protected void cutLink() {
        link.cut();
    }

    @Override
    protected void healLink() {
        link.heal();
    }
}
