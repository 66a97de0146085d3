package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.RecordingListener;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * {@link FencedS3} and {@link FencedS3Async} report how each write ended to their listener (so
 * metrics count refusals): a holder at 10, a zombie at 7 on instances of their own, on the
 * testkit's S3.
 */
class WritersReportToTheListenerIT {

    private final S3Client s3 = S3.client();
    private final String bucket = S3.newBucket(s3);

    @Test
    void theSyncWrapperReportsAcceptedAndRefusedWrites() {
        RecordingListener holderEvents = new RecordingListener();
        RecordingListener zombieEvents = new RecordingListener();
        FencedS3 holder = FencedS3.builder(s3).listener(holderEvents).build();
        FencedS3 zombie = FencedS3.builder(s3).listener(zombieEvents).build();
        String key = "report-" + UUID.randomUUID();
        PutObjectRequest put = PutObjectRequest.builder().bucket(bucket).key(key).build();

        holder.putObject(FencingToken.of("r", 10), put, RequestBody.fromString("ten"));
        assertThatThrownBy(() -> zombie.putObject(FencingToken.of("r", 7), put, RequestBody.fromString("seven")))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.deleteObject(FencingToken.of("r", 8), bucket, key))
                .isInstanceOf(StaleTokenException.class);

        assertThat(holderEvents.accepted()).isEqualTo(1);
        assertThat(zombieEvents.staleRejected()).as("the put and the delete, each once").isEqualTo(2);
        assertThat(zombieEvents.accepted()).isZero();
    }

    @Test
    void theAsyncWrapperReportsTheRefusal() {
        RecordingListener zombieEvents = new RecordingListener();
        FencedS3Async holder = FencedS3Async.builder(S3.asyncClient()).build();
        FencedS3Async zombie = FencedS3Async.builder(S3.asyncClient()).listener(zombieEvents).build();
        String key = "report-" + UUID.randomUUID();
        PutObjectRequest put = PutObjectRequest.builder().bucket(bucket).key(key).build();
        holder.putObject(FencingToken.of("r", 10), put, AsyncRequestBody.fromString("ten")).join();

        assertThatThrownBy(() -> zombie.putObject(FencingToken.of("r", 7), put, AsyncRequestBody.fromString("seven")).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
    }
}
