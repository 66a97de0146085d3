package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/** Fenced multipart uploads against the testkit's S3 server, in both layouts. */
class FencedS3MultipartIT {

    private static final int PART = 5 * 1024 * 1024;

    private final S3Client plain = S3.client();
    private final String bucket = S3.newBucket(plain);

    @TempDir
    Path dir;

    private PutObjectRequest put(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(key).build();
    }

    private Path file(String name, int size, char fill) throws IOException {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, (byte) fill);
        return Files.write(dir.resolve(name), bytes);
    }

    /** The same file uploaded by a newer holder does not let the zombie's next upload land. */
    @Test
    void aNewerHolderUploadingTheSameFileFencesTheZombiesNextUpload() throws IOException {
        Path same = file("same.bin", PART + 4, 's');
        String key = "report-" + UUID.randomUUID();
        FencedS3 a = FencedS3.create(S3.client());
        FencedS3 b = FencedS3.create(S3.client());
        a.putObjectMultipart(FencingToken.of(key, 5), put(key), same, PART);
        b.putObjectMultipart(FencingToken.of(key, 6), put(key), same, PART);

        assertThatThrownBy(() -> a.putObjectMultipart(FencingToken.of(key, 5), put(key), file("zombie.bin", PART, 'z'), PART))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(6));

        assertThat(b.getObject(bucket, key)).hasValueSatisfying(o -> {
            assertThat(o.token()).isEqualTo(6);
            assertThat(o.content()).hasSize(PART + 4).containsOnly((byte) 's');
        });
        assertThat(plain.listMultipartUploads(r -> r.bucket(bucket)).uploads()).isEmpty();
        assertThat(plain.listObjectsV2(r -> r.bucket(bucket).prefix(Settings.DEFAULT_DATA_PREFIX)).contents())
                .as("only the live data object is left").hasSize(1);
    }

    /** IN_PLACE: a newer put lands just before the zombie's completion; the completion is refused and aborted. */
    @Test
    void anInPlaceCompletionRacedByANewerPutIsRefusedAndAborted() throws IOException {
        Path big = file("big.bin", PART + 4, 'a');
        String key = "report-" + UUID.randomUUID();
        FencedS3 newer = FencedS3.builder(S3.client()).layout(S3Layout.IN_PLACE).build();
        AtomicBoolean interleaved = new AtomicBoolean();
        ExecutionInterceptor beforeComplete = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof CompleteMultipartUploadRequest && interleaved.compareAndSet(false, true)) {
                    newer.putObject(FencingToken.of(key, 9), put(key), RequestBody.fromString("newer"));
                }
            }
        };
        FencedS3 zombie = FencedS3.builder(S3.client(beforeComplete)).layout(S3Layout.IN_PLACE).build();
        assertThatThrownBy(() -> zombie.putObjectMultipart(FencingToken.of(key, 8), put(key), big, PART))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(9));
        assertThat(interleaved).isTrue();
        assertThat(plain.listMultipartUploads(r -> r.bucket(bucket)).uploads()).as("aborted").isEmpty();
        if (TestServers.s3().isManaged()) {
            // measured: S3Mock 5.2 deletes the object at the key on AbortMultipartUpload; real S3 leaves it alone
            System.out.println("SKIPPED the survival check of the newer object after the zombie's abort: S3Mock deletes"
                    + " the object on AbortMultipartUpload (a server bug); it runs against FENCING_S3_ENDPOINT");
        } else {
            assertThat(plain.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String()).isEqualTo("newer");
        }

        newer.putObjectMultipart(FencingToken.of(key, 10), put(key).toBuilder().contentType("application/octet-stream")
                .build(), big, PART);
        assertThat(plain.headObject(r -> r.bucket(bucket).key(key)).metadata()).containsEntry("fencing-token", "10");
        assertThat(plain.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asByteArray()).hasSize(PART + 4);
    }

    /** A file of exactly two parts is two parts: no empty third part, nothing lost. */
    @Test
    void aFileOfExactlyTwoPartsIsUploadedAsTwoParts() throws IOException {
        Path exact = file("exact.bin", 2 * PART, 'e');
        String key = "report-" + UUID.randomUUID();
        AtomicInteger parts = new AtomicInteger();
        ExecutionInterceptor countingParts = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UploadPartRequest) {
                    parts.incrementAndGet();
                }
            }
        };
        FencedS3 fenced = FencedS3.create(S3.client(countingParts));
        fenced.putObjectMultipart(FencingToken.of(key, 1), put(key), exact, PART);
        assertThat(parts).hasValue(2);
        assertThat(fenced.getObject(bucket, key)).hasValueSatisfying(o -> assertThat(o.content()).hasSize(2 * PART));
    }

    @Test
    void aPartSizeOutsideS3sLimitsIsRefusedBeforeAnyRequest() throws IOException {
        Path small = file("small.bin", 10, 'x');
        String key = "report-" + UUID.randomUUID();
        FencedS3 fenced = FencedS3.create(S3.client());
        assertThatThrownBy(() -> fenced.putObjectMultipart(FencingToken.of(key, 1), put(key), small, 1024))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partSize must be between 5 MiB");
        assertThat(plain.listMultipartUploads(r -> r.bucket(bucket)).uploads()).isEmpty();
        assertThat(plain.listObjectsV2(r -> r.bucket(bucket)).contents()).isEmpty();
    }
}
