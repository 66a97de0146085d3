package dev.fencing.s3;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.UnansweredStoreContract;
import dev.fencing.testkit.servers.PartitionProxy;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.services.s3.S3Client;

/** {@link S3FencedStore} through a link that stops answering: the toolkit's exceptions, never the SDK's timeout. */
class S3UnansweredStoreIT extends UnansweredStoreContract {

    private static PartitionProxy link;
    private static S3Client client;
    private static String bucket;

    @BeforeAll
    static void start() {
        URI atomic = URI.create(dev.fencing.testkit.servers.TestServers.s3().atomicEndpoint());
        link = PartitionProxy.start(atomic.getHost(), atomic.getPort());
        client = S3.client("http://127.0.0.1:" + link.port());
        bucket = S3.newBucket(client);
    }

    @AfterAll
    static void stop() {
        client.close();
        link.close();
    }

    @Override
    protected FencedStore createStoreThroughLink(FencingListener listener) {
        return S3FencedStore.builder(client, bucket).keyPrefix("unanswered/").requestTimeout(Duration.ofSeconds(1))
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
