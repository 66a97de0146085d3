package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/** The fenced S3 wrapper against the testkit's S3 server (S3Mock behind the testkit's serializing proxy). */
class FencedS3IT {

    private final S3Client plain = S3.client();
    private final String bucket = S3.newBucket(plain);

    private static String key() {
        return "invoice-" + UUID.randomUUID();
    }

    private PutObjectRequest put(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(key).build();
    }

    private String content(String key) {
        return plain.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String();
    }

    /** Article §13 with two clients: the paused holder's put is refused, the newer holder's object stays. */
    @Test
    void theZombieWritersPutIsRefused() {
        FencedS3 client1 = FencedS3.create(S3.client());
        FencedS3 client2 = FencedS3.create(S3.client());
        String key = key();
        client1.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("v1"));
        client2.putObject(FencingToken.of(key, 3), put(key), RequestBody.fromString("v3 by client 2"));
        assertThatThrownBy(() -> client1.putObject(FencingToken.of(key, 2), put(key), RequestBody.fromString("zombie")))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(3));
        assertThat(content(key)).isEqualTo("v3 by client 2");
    }

    /**
     * Writer B (newer token) writes between writer A's read and A's conditional put, driven by an
     * interceptor on A's client: A's put gets 412, A re-reads and is refused as stale; B's object survives.
     */
    @Test
    void aWriteBetweenTheReadAndTheConditionalPutMakesThePutReReadAndRefuse() {
        String key = key();
        FencedS3 writerB = FencedS3.create(S3.client());
        writerB.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("initial"));
        AtomicBoolean interleaved = new AtomicBoolean();
        List<String> aRequests = new ArrayList<>();
        ExecutionInterceptor betweenReadAndPut = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                aRequests.add(context.httpRequest().method() + " " + context.httpRequest().firstMatchingHeader("If-Match")
                        .orElse(""));
                if (context.httpRequest().method().name().equals("PUT") && interleaved.compareAndSet(false, true)) {
                    writerB.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("B's object"));
                }
            }
        };
        FencedS3 writerA = FencedS3.create(S3.client(betweenReadAndPut));
        assertThatThrownBy(() -> writerA.putObject(FencingToken.of(key, 4), put(key), RequestBody.fromString("A's object")))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(5));
        assertThat(interleaved).isTrue();
        assertThat(aRequests).as("HEAD, the PUT that got 412, the HEAD that found token 5").hasSize(3);
        assertThat(content(key)).isEqualTo("B's object");
    }

    @Test
    void aColdPutIsTwoRequestsAndAWarmOneIsOneAndAWrongCacheCostsARetry() {
        AtomicInteger requests = new AtomicInteger();
        ExecutionInterceptor counting = new ExecutionInterceptor() {
            @Override
            public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                requests.incrementAndGet();
            }
        };
        FencedS3 fenced = FencedS3.create(S3.client(counting));
        String key = key();
        fenced.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("a"));
        assertThat(requests).as("cold: HEAD + PUT").hasValue(2);
        requests.set(0);
        fenced.putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("b"));
        assertThat(requests).as("warm: PUT").hasValue(1);

        FencedS3.create(S3.client()).putObject(FencingToken.of(key, 2), put(key), RequestBody.fromString("other writer"));
        requests.set(0);
        fenced.putObject(FencingToken.of(key, 3), put(key), RequestBody.fromString("c"));
        assertThat(requests).as("stale cache: PUT (412), HEAD, PUT").hasValue(3);
        assertThat(content(key)).isEqualTo("c");
    }

    @Test
    void theTokenIsPlainMetadataAndTheCallersHeadersAreKept() {
        FencedS3 fenced = FencedS3.create(S3.client());
        String key = key();
        fenced.putObject(FencingToken.of(key, 7), put(key).toBuilder().contentType("application/json")
                .metadata(Map.of("owner", "billing")).build(), RequestBody.fromString("{}"));
        HeadObjectResponse head = plain.headObject(r -> r.bucket(bucket).key(key));
        assertThat(head.metadata()).containsEntry("fencing-token", "7").containsEntry("owner", "billing");
        assertThat(head.contentType()).isEqualTo("application/json");
        assertThat(fenced.getObject(bucket, key)).hasValueSatisfying(object -> {
            assertThat(object.token()).isEqualTo(7);
            assertThat(object.metadata()).isEqualTo(Map.of("owner", "billing"));
            assertThat(object.contentAsUtf8()).isEqualTo("{}");
        });
        assertThat(fenced.highWaterMark(bucket, key)).hasValue(7);
    }

    @Test
    void aFencedDeleteLeavesATombstoneThatStopsAZombie() {
        FencedS3 fenced = FencedS3.create(S3.client());
        String key = key();
        fenced.putObject(FencingToken.of(key, 5), put(key), RequestBody.fromString("v"));
        fenced.deleteObject(FencingToken.of(key, 6), bucket, key);
        assertThat(fenced.getObject(bucket, key)).isEmpty();
        assertThat(plain.headObject(r -> r.bucket(bucket).key(key)).metadata()).containsEntry("fencing-deleted", "true");
        assertThatThrownBy(() -> FencedS3.create(S3.client()).putObject(FencingToken.of(key, 5), put(key),
                RequestBody.fromString("zombie"))).isInstanceOf(StaleTokenException.class);
        fenced.putObject(FencingToken.of(key, 7), put(key), RequestBody.fromString("back"));
        assertThat(fenced.getObject(bucket, key)).hasValueSatisfying(o -> assertThat(o.contentAsUtf8()).isEqualTo("back"));
    }

    @Test
    void badInputIsRefusedWithAClearMessage() {
        FencedS3 fenced = FencedS3.create(S3.client());
        String key = key();
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 1), PutObjectRequest.builder().bucket("no-such-bucket-"
                + UUID.randomUUID().toString().substring(0, 8)).key(key).build(), RequestBody.fromString("x")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bucket 'no-such-bucket-")
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 1), put(key).toBuilder()
                .metadata(Map.of("Fencing-Token", "99")).build(), RequestBody.fromString("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not set the metadata key 'Fencing-Token'");
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 1), put(key).toBuilder().ifNoneMatch("*").build(),
                RequestBody.fromString("x"))).hasMessageContaining("must not set If-Match or If-None-Match");
        assertThatThrownBy(() -> FencingToken.of(key, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fenced.putObjectMultipart(FencingToken.of(key, 1), put(key), Path.of("x"), 1024))
                .hasMessageContaining("partSize must be at least 5 MiB");
        assertThat(fenced.getObject(bucket, key)).as("nothing written").isEmpty();
    }

    @Test
    void aMultipartUploadIsCompletedConditionallyAndAZombiesIsAborted(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("big.bin");
        byte[] part = new byte[5 * 1024 * 1024];
        java.util.Arrays.fill(part, (byte) 'a');
        Files.write(file, part);
        Files.write(file, "tail".getBytes(StandardCharsets.UTF_8), java.nio.file.StandardOpenOption.APPEND);
        String key = key();
        FencedS3 newer = FencedS3.create(S3.client());
        AtomicBoolean interleaved = new AtomicBoolean();
        ExecutionInterceptor beforeComplete = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof CompleteMultipartUploadRequest && interleaved.compareAndSet(false, true)) {
                    newer.putObject(FencingToken.of(key, 9), put(key), RequestBody.fromString("newer"));
                }
            }
        };
        FencedS3 zombie = FencedS3.create(S3.client(beforeComplete));
        assertThatThrownBy(() -> zombie.putObjectMultipart(FencingToken.of(key, 8), put(key), file, part.length))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(9));
        assertThat(interleaved).isTrue();
        assertThat(plain.listMultipartUploads(r -> r.bucket(bucket)).uploads()).as("aborted").isEmpty();
        if (TestServers.s3().isManaged()) {
            // measured: S3Mock 5.2 deletes the object at the key on AbortMultipartUpload; real S3 leaves it alone
            System.out.println("SKIPPED the survival check of the newer object after the zombie's abort: S3Mock deletes"
                    + " the object on AbortMultipartUpload (a server bug); it runs against FENCING_S3_ENDPOINT");
        } else {
            assertThat(content(key)).isEqualTo("newer");
        }

        FencedS3 holder = FencedS3.create(S3.client());
        holder.putObjectMultipart(FencingToken.of(key, 10), put(key).toBuilder().contentType("application/octet-stream")
                .build(), file, part.length);
        assertThat(plain.headObject(r -> r.bucket(bucket).key(key)).metadata()).containsEntry("fencing-token", "10");
        assertThat(plain.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asByteArray()).hasSize(part.length + 4);
    }

    @Test
    void theAsyncWrapperFencesTheSameWay() {
        try (S3AsyncClient async = S3.asyncClient()) {
            FencedS3Async fenced = FencedS3Async.create(async);
            String key = key();
            fenced.putObject(FencingToken.of(key, 1), put(key), () -> AsyncRequestBody.fromString("v1")).join();
            fenced.putObject(FencingToken.of(key, 3), put(key), () -> AsyncRequestBody.fromString("v3")).join();
            assertThatThrownBy(() -> fenced.putObject(FencingToken.of(key, 2), put(key),
                    () -> AsyncRequestBody.fromString("zombie")).join())
                    .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);
            fenced.deleteObject(FencingToken.of(key, 4), bucket, key).join();
            assertThat(fenced.getObject(bucket, key).join()).isEmpty();
            assertThat(plain.headObject(r -> r.bucket(bucket).key(key)).metadata()).containsEntry("fencing-token", "4");
        }
    }
}
