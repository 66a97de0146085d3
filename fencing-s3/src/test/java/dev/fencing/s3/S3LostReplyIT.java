package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.S3TestServer;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Lost replies on S3 (found by the adversarial review, branch attack-stores). A conditional PUT lands,
 * its reply is lost, and another writer of the SAME holder (same token; MONOTONIC lets one holder
 * write many times, e.g. two worker processes under one lease) writes the key in the window. Before
 * the fix the SDK retried by itself, got 412, found the object's write id was now the other
 * writer's, and the toolkit applied its change a second time (S3FencedStore.update: 3 after two
 * increments) or re-swapped a POINTER to a data object the other writer had already deleted (key
 * unreadable). The guarantee now: the conditional PUT is not retried blindly; after a lost reply the
 * writer answers "written" if the object carries its write id, else {@link WriteOutcomeUnknownException}
 * — applied at most once, never twice.
 *
 * <p>{@link S3FencedStore}'s lost replies are the contract's ({@link S3FencedStoreIT}); these are
 * FencedS3's POINTER layout beyond it, sync and async.
 */
class S3LostReplyIT {

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

    /**
     * FencedS3's POINTER layout: A's pointer swap lands, its reply is lost; B (same token) swaps its own
     * pointer in and deletes A's data object as "replaced". Before the fix A's SDK retry got 412 and A
     * swapped its pointer in again, naming the data object B deleted: the key was unreadable. Now A
     * does not retry: it is told the outcome is unknown, and the key holds B's content.
     */
    @Test
    void aLostPointerSwapReplyThenASameTokenWriterKeepsTheKeyReadable() {
        FencedS3 workerA = FencedS3.create(viaProxy);
        FencedS3 workerB = FencedS3.create(direct);
        String key = "report-" + UUID.randomUUID();
        FencingToken token = FencingToken.of(key, 5);
        workerA.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("v0"));

        // the pointer PUT (its body starts "fencing-pointer/1") lands; its reply is lost; B writes in the window
        proxy.dropReplyTo("fencing-pointer/1", capturing(() -> workerB.putObject(token,
                PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("from B"))));
        assertThatThrownBy(() -> workerA.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(),
                RequestBody.fromString("from A"))).isInstanceOf(WriteOutcomeUnknownException.class);

        assertThat(hookFailure.get()).as("worker B's put").isNull();
        assertThat(proxy.dropped()).as("the pointer swap's reply was dropped").isEqualTo(1);
        assertThat(workerB.getObject(bucket, key)).map(FencedObject::contentAsUtf8)
                .as("the key holds B's content, written after A's").contains("from B");
    }

    /** POINTER, a lost swap reply and nobody in the window: A is told written and its content is there. */
    @Test
    void aLostPointerSwapReplyAloneSaysWritten() {
        FencedS3 workerA = FencedS3.create(viaProxy);
        String key = "report-" + UUID.randomUUID();
        FencingToken token = FencingToken.of(key, 5);
        workerA.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("v0"));

        proxy.dropReplyTo("fencing-pointer/1", () -> { });
        workerA.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("from A"));

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(FencedS3.create(direct).getObject(bucket, key)).map(FencedObject::contentAsUtf8).contains("from A");
    }

    /** The async client, POINTER, same-token writer in the window: the future fails "unknown"; B's content stays. */
    @Test
    void anAsyncLostPointerSwapReplyThenASameTokenWriterIsUnknown() {
        try (S3AsyncClient async = S3AsyncClient.builder()
                .endpointOverride(URI.create(proxy.httpEndpoint()))
                .forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(NettyNioAsyncHttpClient.create())
                .build()) {
            FencedS3Async workerA = FencedS3Async.create(async);
            FencedS3 workerB = FencedS3.create(direct);
            String key = "async-report-" + UUID.randomUUID();
            FencingToken token = FencingToken.of(key, 5);
            workerB.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("v0"));

            proxy.dropReplyTo("fencing-pointer/1", capturing(() -> workerB.putObject(token,
                    PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromString("from B"))));
            assertThatThrownBy(() -> workerA.putObject(token, PutObjectRequest.builder().bucket(bucket).key(key).build(),
                    AsyncRequestBody.fromString("from A")).join())
                    .isInstanceOf(CompletionException.class).hasCauseInstanceOf(WriteOutcomeUnknownException.class);

            assertThat(hookFailure.get()).as("worker B's put").isNull();
            assertThat(proxy.dropped()).isEqualTo(1);
            assertThat(workerB.getObject(bucket, key)).map(FencedObject::contentAsUtf8).contains("from B");
        }
    }
}
