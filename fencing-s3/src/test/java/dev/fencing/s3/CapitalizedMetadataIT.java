package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Servers that spell user-metadata header names in another case: MinIO answers
 * {@code X-Amz-Meta-Fencing-Token}, and so does anything behind a Go reverse proxy (Go writes
 * header names in canonical form). The SDK keeps the name as sent after the prefix, so the
 * object's metadata map holds {@code Fencing-Token}. Every client here rewrites each response's
 * header names the way Go does, and every path must still find the toolkit's marks: puts in both
 * layouts, deletes, multipart uploads, reads, the async wrapper and the store — each with the
 * newer holder and the zombie on clients of their own.
 */
class CapitalizedMetadataIT {

    private static final int PART = 5 * 1024 * 1024;

    /** Rewrites every response header name as Go's {@code CanonicalMIMEHeaderKey} does. */
    static final ExecutionInterceptor GO_CANONICAL_HEADERS = new ExecutionInterceptor() {
        @Override
        public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
            SdkHttpResponse response = context.httpResponse();
            SdkHttpResponse.Builder canonical = response.toBuilder().clearHeaders();
            response.headers().forEach((name, values) -> canonical.putHeader(canonical(name), values));
            return canonical.build();
        }
    };

    private final S3Client plain = S3.client();
    private final String bucket = S3.newBucket(plain);
    private final S3Client capitalized1 = S3.client(GO_CANONICAL_HEADERS);
    private final S3Client capitalized2 = S3.client(GO_CANONICAL_HEADERS);
    private final S3AsyncClient async1 = S3.asyncClient(GO_CANONICAL_HEADERS);
    private final S3AsyncClient async2 = S3.asyncClient(GO_CANONICAL_HEADERS);

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        plain.close();
        capitalized1.close();
        capitalized2.close();
        async1.close();
        async2.close();
    }

    static String canonical(String name) {
        StringBuilder out = new StringBuilder(name.length());
        boolean upper = true;
        for (char c : name.toCharArray()) {
            out.append(upper ? Character.toUpperCase(c) : Character.toLowerCase(c));
            upper = c == '-';
        }
        return out.toString();
    }

    private static String key() {
        return "capitalized-" + UUID.randomUUID();
    }

    private PutObjectRequest put(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(key).metadata(Map.of("owner", "billing")).build();
    }

    private static void assertStale(Runnable write, long mark) {
        assertThatThrownBy(write::run).isInstanceOfSatisfying(StaleTokenException.class,
                e -> assertThat(e.highWaterMark()).isEqualTo(mark));
    }

    private static void assertStaleAsync(Runnable write, long mark) {
        assertThatThrownBy(write::run).isInstanceOf(CompletionException.class).cause()
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(mark));
    }

    @Test
    void theInterceptorReallyCapitalizesTheMetadataNames() {
        String key = key();
        FencedS3.builder(capitalized1).layout(S3Layout.IN_PLACE).build()
                .putObject(FencingToken.of(key, 1), put(key), RequestBody.fromString("v"));
        assertThat(capitalized2.headObject(r -> r.bucket(bucket).key(key)).metadata())
                .containsKeys("Fencing-Token", "Owner").doesNotContainKey("fencing-token");
    }

    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void aZombiesPutAndDeleteAreRefusedAndReadsSkipTheMarks(S3Layout layout) {
        String key = key();
        FencedS3 holder = FencedS3.builder(capitalized1).layout(layout).build();
        holder.putObject(FencingToken.of(key, 10), put(key), RequestBody.fromString("v10"));

        FencedS3 zombie = FencedS3.builder(capitalized2).layout(layout).build();
        assertStale(() -> zombie.putObject(FencingToken.of(key, 9), put(key), RequestBody.fromString("zombie")), 10);
        assertStale(() -> zombie.deleteObject(FencingToken.of(key, 9), bucket, key), 10);
        assertThat(zombie.highWaterMark(bucket, key)).hasValue(10);
        assertThat(zombie.getObject(bucket, key)).hasValueSatisfying(object -> {
            assertThat(object.contentAsUtf8()).isEqualTo("v10");
            assertThat(object.token()).isEqualTo(10);
            assertThat(object.metadata().keySet()).map(name -> name.toLowerCase(Locale.ROOT)).containsExactly("owner");
        });

        holder.deleteObject(FencingToken.of(key, 11), bucket, key);
        FencedS3 coldZombie = FencedS3.builder(capitalized2).layout(layout).build();
        assertThat(coldZombie.getObject(bucket, key)).as("a tombstone is not content").isEmpty();
        assertStale(() -> coldZombie.putObject(FencingToken.of(key, 10), put(key), RequestBody.fromString("zombie")),
                11);
        assertThat(coldZombie.highWaterMark(bucket, key)).hasValue(11);
    }

    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void aZombiesMultipartUploadIsRefused(S3Layout layout) throws IOException {
        String key = key();
        FencedS3 holder = FencedS3.builder(capitalized1).layout(layout).build();
        holder.putObject(FencingToken.of(key, 10), put(key), RequestBody.fromString("v10"));

        FencedS3 zombie = FencedS3.builder(capitalized2).layout(layout).build();
        Path zombieFile = file("zombie.bin");
        assertStale(() -> zombie.putObjectMultipart(FencingToken.of(key, 9), put(key), zombieFile, PART), 10);
        assertThat(holder.getObject(bucket, key).map(FencedObject::contentAsUtf8)).contains("v10");
    }

    @ParameterizedTest
    @EnumSource(S3Layout.class)
    void theAsyncWrapperRefusesTheZombie(S3Layout layout) {
        String key = key();
        FencedS3Async holder = FencedS3Async.builder(async1).layout(layout).build();
        holder.putObject(FencingToken.of(key, 10), put(key), AsyncRequestBody.fromString("v10")).join();

        FencedS3Async zombie = FencedS3Async.builder(async2).layout(layout).build();
        assertStaleAsync(() -> zombie.putObject(FencingToken.of(key, 9), put(key), AsyncRequestBody.fromString("z"))
                .join(), 10);
        holder.deleteObject(FencingToken.of(key, 11), bucket, key).join();
        FencedS3Async coldZombie = FencedS3Async.builder(async2).layout(layout).build();
        assertThat(coldZombie.getObject(bucket, key).join()).isEmpty();
        assertStaleAsync(() -> coldZombie.putObject(FencingToken.of(key, 10), put(key),
                AsyncRequestBody.fromString("z")).join(), 11);
        assertThat(coldZombie.highWaterMark(bucket, key).join()).hasValue(11);
    }

    @Test
    void theStoreRefusesTheZombieAndReadsNoTombstone() {
        FencedStore holder = S3FencedStore.builder(capitalized1, bucket).keyPrefix("store/").build();
        FencedStore zombie = S3FencedStore.builder(capitalized2, bucket).keyPrefix("store/").build();
        String key = key();
        holder.write(FencingToken.of(key, 10), key, "v10");
        assertStale(() -> zombie.write(FencingToken.of(key, 9), key, "zombie"), 10);
        assertStale(() -> zombie.update(FencingToken.of(key, 9), key, v -> "zombie"), 10);
        assertThat(zombie.read(key)).contains(new StoredValue(key, "v10", 10));
        assertThat(holder.update(FencingToken.of(key, 11), key, v -> v.orElseThrow() + "+1"))
                .isEqualTo(new StoredValue(key, "v10+1", 11));

        holder.delete(FencingToken.of(key, 12), key);
        assertThat(zombie.read(key)).isEmpty();
        assertStale(() -> zombie.write(FencingToken.of(key, 11), key, "zombie re-create"), 12);
        assertThat(zombie.highWaterMark(key)).hasValue(12);
    }

    private Path file(String name) throws IOException {
        byte[] bytes = new byte[PART + 4];
        Arrays.fill(bytes, (byte) 'z');
        return Files.write(dir.resolve(name), bytes);
    }
}
