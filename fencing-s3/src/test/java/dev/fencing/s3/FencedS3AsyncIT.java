package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/** {@link FencedS3Async} fences exactly as {@link FencedS3}: the same cases on the async client. */
class FencedS3AsyncIT {

    private final S3Client plain = S3.client();
    private final String bucket = S3.newBucket(plain);
    private final S3AsyncClient clientA = S3.asyncClient();
    private final S3AsyncClient clientB = S3.asyncClient();

    @AfterEach
    void close() {
        clientA.close();
        clientB.close();
    }

    private PutObjectRequest put(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(key).build();
    }

    @Test
    void identicalBytesFromANewerHolderAndRepeatedDeletesStillFenceTheZombie() {
        FencedS3Async a = FencedS3Async.create(clientA);
        FencedS3Async b = FencedS3Async.builder(clientB).build();
        String key = "invoice-" + UUID.randomUUID();
        a.putObject(FencingToken.of(key, 5), put(key), AsyncRequestBody.fromString("same")).join();
        b.putObject(FencingToken.of(key, 6), put(key), AsyncRequestBody.fromString("same")).join();
        assertThatThrownBy(() -> a.putObject(FencingToken.of(key, 5), put(key), AsyncRequestBody.fromString("ZOMBIE"))
                .join()).isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);
        assertThat(a.getObject(bucket, key).join()).hasValueSatisfying(o -> {
            assertThat(o.contentAsUtf8()).isEqualTo("same");
            assertThat(o.token()).isEqualTo(6);
        });

        a.deleteObject(FencingToken.of(key, 7), bucket, key).join();
        b.deleteObject(FencingToken.of(key, 8), bucket, key).join();
        assertThatThrownBy(() -> a.putObject(FencingToken.of(key, 7), put(key), AsyncRequestBody.fromString("back"))
                .join()).hasCauseInstanceOf(StaleTokenException.class);
        assertThat(a.getObject(bucket, key).join()).isEmpty();
        assertThat(b.highWaterMark(bucket, key).join()).hasValue(8);
    }

    @Test
    void inPlaceLayoutAndMultipartWorkTheSameWay(@TempDir Path dir) throws IOException {
        byte[] bytes = new byte[5 * 1024 * 1024 + 3];
        Arrays.fill(bytes, (byte) 'm');
        Path file = Files.write(dir.resolve("f.bin"), bytes);
        String key = "report-" + UUID.randomUUID();
        FencedS3Async inPlace = FencedS3Async.builder(clientA).layout(S3Layout.IN_PLACE).build();
        inPlace.putObjectMultipart(FencingToken.of(key, 3), put(key), file, bytes.length - 3).join();
        assertThat(plain.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asByteArray()).isEqualTo(bytes);

        FencedS3Async pointer = FencedS3Async.create(clientB);
        pointer.putObjectMultipart(FencingToken.of(key, 4), put(key), file, bytes.length - 3).join();
        assertThat(pointer.getObject(bucket, key).join()).hasValueSatisfying(o -> assertThat(o.content()).isEqualTo(bytes));
        assertThatThrownBy(() -> inPlace.putObject(FencingToken.of(key, 3), put(key), AsyncRequestBody.fromString("z"))
                .join()).hasCauseInstanceOf(StaleTokenException.class);
    }

    @Test
    void badInputFailsTheFutureWithTheSameExceptions() {
        FencedS3Async fenced = FencedS3Async.create(clientA);
        String missing = "no-such-bucket-" + UUID.randomUUID().toString().substring(0, 8);
        assertThatThrownBy(() -> fenced.putObject(FencingToken.of("k", 1), PutObjectRequest.builder().bucket(missing)
                .key("k").build(), AsyncRequestBody.fromString("x")).join())
                .hasCauseInstanceOf(NoSuchBucketException.class)
                .hasMessageContaining("bucket '" + missing + "' does not exist");
        assertThatThrownBy(() -> fenced.putObject(null, put("k"), AsyncRequestBody.fromString("x")).join())
                .hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("token");
        assertThatThrownBy(() -> fenced.deleteObject(FencingToken.of("k", 1), bucket, "").join())
                .hasCauseInstanceOf(IllegalArgumentException.class).hasMessageContaining("object key");
    }
}
