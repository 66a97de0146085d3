package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Servers (simulated as a gateway in front of the testkit's atomic S3 endpoint, by an interceptor on
 * every client of that "server") that keep every promise S3ServerCheck probes but break one it does
 * not probe. Each test shows that a fenced write or read then goes wrong, and asks that the check
 * had failed the server.
 */
class S3ServerCheckGapsIT {

    private static final int PART = 5 * 1024 * 1024;

    /** A gateway that drops If-None-Match on CompleteMultipartUpload only (POST ?uploadId=...). */
    static final ExecutionInterceptor DROPS_IF_NONE_MATCH_ON_COMPLETION = new ExecutionInterceptor() {
        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
            SdkHttpRequest request = context.httpRequest();
            if (context.request() instanceof CompleteMultipartUploadRequest) {
                return request.toBuilder().removeHeader("If-None-Match").build();
            }
            return request;
        }
    };

    /** A gateway (a caching proxy) that keeps user metadata on HeadObject but drops it from GetObject answers. */
    static final ExecutionInterceptor DROPS_METADATA_ON_GET = new ExecutionInterceptor() {
        @Override
        public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
            SdkHttpResponse response = context.httpResponse();
            if (!"GetObject".equals(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME))) {
                return response;
            }
            SdkHttpResponse.Builder kept = response.toBuilder().clearHeaders();
            response.headers().forEach((name, values) -> {
                if (!name.toLowerCase(java.util.Locale.ROOT).startsWith("x-amz-meta-")) {
                    kept.putHeader(name, values);
                }
            });
            return kept.build();
        }
    };

    private final S3Client plain = S3.client();
    private final String bucket = S3.newBucket(plain);

    @TempDir
    Path dir;

    private PutObjectRequest put(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(key).build();
    }

    /**
     * The check probes If-None-Match only on PutObject and If-Match only on completion; an IN_PLACE
     * multipart upload to a new key completes with If-None-Match: *. A newer holder (token 9)
     * creates the key while the zombie (token 8) uploads its parts; the zombie's completion lands over
     * it. Then the check must have failed that server.
     */
    @Test
    void aServerIgnoringIfNoneMatchOnCompletionFailsTheCheck() throws IOException {
        byte[] bytes = new byte[PART + 4];
        Arrays.fill(bytes, (byte) 'z');
        Path big = Files.write(dir.resolve("big.bin"), bytes);
        String key = "report-" + UUID.randomUUID();
        FencedS3 newer = FencedS3.builder(S3.client(DROPS_IF_NONE_MATCH_ON_COMPLETION)).layout(S3Layout.IN_PLACE).build();
        AtomicBoolean interleaved = new AtomicBoolean();
        ExecutionInterceptor beforeComplete = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof CompleteMultipartUploadRequest && interleaved.compareAndSet(false, true)) {
                    newer.putObject(FencingToken.of(key, 9), put(key), RequestBody.fromString("newer"));
                }
            }
        };
        FencedS3 zombie = FencedS3.builder(S3.client(beforeComplete, DROPS_IF_NONE_MATCH_ON_COMPLETION))
                .layout(S3Layout.IN_PLACE).build();
        boolean zombieLanded;
        try {
            zombie.putObjectMultipart(FencingToken.of(key, 8), put(key), big, PART);
            zombieLanded = true;
        } catch (RuntimeException refused) {
            zombieLanded = false;
        }
        assertThat(interleaved).isTrue();
        long mark = newer.highWaterMark(bucket, key).orElseThrow();

        S3ServerCheck check;
        try (S3Client server = S3.client(DROPS_IF_NONE_MATCH_ON_COMPLETION)) {
            check = S3ServerCheck.run(server, bucket);
        }
        assertThat(check.passed())
                .as("the check passed a server on which a zombie's (token 8) IN_PLACE multipart upload landed over"
                        + " token 9 (zombie landed: %s, mark now %s); problems: %s", zombieLanded, mark, check.problems())
                .isEqualTo(!zombieLanded);
    }

    /**
     * The check reads the toolkit's metadata through HeadObject only; FencedS3.getObject reads it
     * from the GetObject answer. On a gateway that drops it there, a deleted object's tombstone comes
     * back as content. Then the check must have failed that server.
     */
    @Test
    void aServerDroppingMetadataOnGetFailsTheCheck() {
        String key = "doc-" + UUID.randomUUID();
        FencedS3 holder = FencedS3.builder(S3.client(DROPS_METADATA_ON_GET)).layout(S3Layout.IN_PLACE).build();
        FencedS3 reader = FencedS3.builder(S3.client(DROPS_METADATA_ON_GET)).layout(S3Layout.IN_PLACE).build();
        holder.putObject(FencingToken.of(key, 3), put(key), RequestBody.fromString("v3"));
        holder.deleteObject(FencingToken.of(key, 4), bucket, key);
        Optional<FencedObject> read = reader.getObject(bucket, key);

        S3ServerCheck check;
        try (S3Client server = S3.client(DROPS_METADATA_ON_GET)) {
            check = S3ServerCheck.run(server, bucket);
        }
        assertThat(check.passed())
                .as("the check passed a server on which a deleted object reads back as %s; problems: %s",
                        read.map(o -> "'" + new String(o.content(), java.nio.charset.StandardCharsets.UTF_8) + "'"),
                        check.problems())
                .isEqualTo(read.isEmpty());
    }

    /** Held: on the same server without the gateway the check passes and the zombie is refused. */
    @Test
    void heldTheGoodServerPasses() {
        assertThat(S3ServerCheck.run(plain, bucket).problems()).isEmpty();
    }
}
