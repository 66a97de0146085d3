package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.servers.ReplyDroppingProxy;
import dev.fencing.testkit.servers.S3TestServer;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * ATTACK (adversarial review, branch attack-stores): unclear replies on S3. A conditional PUT lands,
 * its reply is lost, and before the SDK's automatic retry another writer of the SAME holder (same
 * token; MONOTONIC lets one holder write many times, e.g. two worker processes under one lease)
 * writes the key. The retry gets 412; the toolkit's "did my write land?" check looks only at the
 * object's CURRENT write id, which is now the other writer's, and concludes it did not:
 * S3FencedStore.update applies its change a second time; FencedS3 (POINTER) swaps its pointer in a
 * second time although the other writer already deleted the data object it names.
 */
class AttackS3UnclearRepliesIT {

    private final S3Client direct = S3.client();
    private final String bucket = S3.newBucket(direct);
    private ReplyDroppingProxy proxy;
    private S3Client viaProxy;
    private final AtomicReference<Throwable> hookFailure = new AtomicReference<>();

    @BeforeEach
    void startProxy() {
        proxy = ReplyDroppingProxy.inFrontOf(TestServers.s3().atomicEndpoint());
        viaProxy = S3Client.builder()
                .endpointOverride(URI.create(proxy.httpEndpoint()))
                .forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    @AfterEach
    void stopProxy() {
        viaProxy.close();
        proxy.close();
    }

    private Runnable capturing(Runnable hook) {
        return () -> {
            try {
                hook.run();
            } catch (Throwable t) {
                hookFailure.set(t);
            }
        };
    }

    private static String increment(Optional<String> value) {
        return Integer.toString(Integer.parseInt(value.orElse("0")) + 1);
    }

    /** BREAKS "no update is applied twice": two increments by one holder's two workers end at 3. */
    @Test
    void aLostReplyThenASameTokenWriterMakesS3FencedStoreApplyAnIncrementTwice() {
        FencedStore workerA = S3FencedStore.create(viaProxy, bucket, "", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore workerB = S3FencedStore.create(direct, bucket, "", Policy.MONOTONIC, FencingListener.NONE);
        String key = "counter-" + UUID.randomUUID();
        FencingToken token = FencingToken.of(key, 5);
        workerA.write(key, "0", token);

        AtomicBoolean first = new AtomicBoolean(true);
        workerA.update(key, token, value -> {
            if (first.getAndSet(false)) {
                // A's PUT lands, its reply is lost; B increments before A's SDK retries
                proxy.dropNextReply(capturing(() -> workerB.update(key, token, AttackS3UnclearRepliesIT::increment)));
            }
            return increment(value);
        });

        assertThat(hookFailure.get()).as("worker B's update").isNull();
        assertThat(proxy.dropped()).as("the proxy dropped the PUT's reply").isEqualTo(1);
        assertThat(workerB.read(key)).map(StoredValue::value)
                .as("two updates of one increment each, A's first reply lost and retried by the SDK")
                .contains("2");
    }

    /**
     * BREAKS "no update is lost" on FencedS3's POINTER layout: A's pointer swap lands, its reply is
     * lost; B (same token) swaps its own pointer in and deletes A's data object as "replaced"; A's
     * SDK retry gets 412, A sees B's pointer, still accepts its token, and swaps A's pointer in again —
     * naming the data object B deleted. The key is then unreadable, and B's content is gone too.
     */
    @Test
    void aLostPointerSwapReplyThenASameTokenWriterLeavesAPointerToDeletedData() {
        FencedS3 workerA = FencedS3.create(viaProxy);
        FencedS3 workerB = FencedS3.create(direct);
        String key = "report-" + UUID.randomUUID();
        FencingToken token = FencingToken.of(key, 5);
        workerA.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("v0"));

        // the pointer PUT (its body starts "fencing-pointer/1") lands; its reply is lost; B writes in the window
        proxy.dropReplyTo("fencing-pointer/1", capturing(() -> workerB.putObject(token,
                PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("from B"))));
        workerA.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("from A"));

        assertThat(hookFailure.get()).as("worker B's put").isNull();
        assertThat(proxy.dropped()).as("the pointer swap's reply was dropped").isEqualTo(1);
        assertThat(workerB.getObject(bucket, key)).map(FencedObject::contentAsUtf8)
                .as("the key holds A's or B's content").isPresent();
    }
}
