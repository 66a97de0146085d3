package dev.fencing.gcs;

import com.google.cloud.storage.Storage;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.UnansweredStoreContract;
import dev.fencing.testkit.servers.PartitionProxy;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link GcsFencedStore} through a link that stops answering: the toolkit's exceptions, never the client's. */
class GcsUnansweredStoreIT extends UnansweredStoreContract {

    private static PartitionProxy link;
    private static Storage client;
    private static String bucket;

    @BeforeAll
    static void start() {
        URI server = URI.create(Gcs.server().endpoint());
        link = PartitionProxy.start(server.getHost(), server.getPort());
        client = Gcs.client("http://127.0.0.1:" + link.port());
        bucket = Gcs.newBucket();
    }

    @AfterAll
    static void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (link != null) {
            link.close();
        }
    }

    @Override
    protected FencedStore createStoreThroughLink(FencingListener listener) {
        return GcsFencedStore.builder(client, bucket).keyPrefix("unanswered/").requestTimeout(Duration.ofSeconds(1))
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
