package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.RecordingListener;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Each setting of {@link S3FencedStore.Builder} takes effect against the testkit's S3, and
 * {@link S3FencedStore#create(S3Client, String)} is the builder's defaults: no prefix,
 * {@link Policy#MONOTONIC}, no listener. The request timeout is shown against a silent server in
 * {@link SilentS3IT}.
 */
class S3FencedStoreBuilderIT {

    private final S3Client s3 = S3.client();
    private final String bucket = S3.newBucket(s3);

    private static String key() {
        return "builder-" + UUID.randomUUID();
    }

    private HeadObjectResponse head(String objectKey) {
        return s3.headObject(r -> r.bucket(bucket).key(objectKey));
    }

    @Test
    void createIsTheDefaults() {
        FencedStore store = S3FencedStore.create(s3, bucket);
        String key = key();
        store.write(FencingToken.of("orders", 10), key, "a");
        store.write(FencingToken.of("orders", 10), key, "b"); // MONOTONIC: the same token writes again
        assertThat(head(key).metadata()).containsEntry(FencedS3.TOKEN_METADATA, "10");
        assertThat(store.read(key)).hasValueSatisfying(value -> assertThat(value.value()).isEqualTo("b"));
    }

    @Test
    void thePrefixStartsEveryObjectKey() {
        FencedStore store = S3FencedStore.builder(s3, bucket).keyPrefix("tenant-7/").build();
        String key = key();
        store.write(FencingToken.of("orders", 3), key, "v");
        assertThat(head("tenant-7/" + key).metadata()).containsEntry(FencedS3.TOKEN_METADATA, "3");
        assertThatThrownBy(() -> head(key)).isInstanceOf(NoSuchKeyException.class);
    }

    @Test
    void strictRefusesTheSameTokenThatMonotonicLetsThrough() {
        FencedStore strict = S3FencedStore.builder(s3, bucket).policy(Policy.STRICT).build();
        String key = key();
        strict.write(FencingToken.of("orders", 10), key, "a");
        assertThatThrownBy(() -> strict.write(FencingToken.of("orders", 10), key, "b"))
                .isInstanceOf(StaleTokenException.class);
        strict.write(FencingToken.of("orders", 11), key, "c");
    }

    @Test
    void theListenerHearsTheRefusedWrite() {
        RecordingListener zombieEvents = new RecordingListener();
        FencedStore holder = S3FencedStore.create(s3, bucket);
        try (S3Client zombieClient = S3.client()) { // another process, with an ETag cache of its own
            FencedStore zombie = S3FencedStore.builder(zombieClient, bucket).listener(zombieEvents).build();
            String key = key();
            holder.write(FencingToken.of("orders", 10), key, "holder");
            assertThatThrownBy(() -> zombie.write(FencingToken.of("orders", 7), key, "zombie"))
                    .isInstanceOf(StaleTokenException.class);
        }
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
        assertThat(zombieEvents.accepted()).isZero();
    }
}
