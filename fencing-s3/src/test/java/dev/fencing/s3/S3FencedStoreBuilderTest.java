package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/** {@link S3FencedStore.Builder} refuses what it cannot use, naming the value and what is allowed; no request is sent. */
class S3FencedStoreBuilderTest {

    private static final S3Client S3_CLIENT = S3.client("http://127.0.0.1:9");

    @AfterAll
    static void close() {
        S3_CLIENT.close();
    }

    @Test
    void aClientAndABucketAreRequired() {
        assertThatThrownBy(() -> S3FencedStore.builder(null, "b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("s3 must not be null");
        assertThatThrownBy(() -> S3FencedStore.builder(S3_CLIENT, ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bucket must not be blank, got ''");
        assertThatThrownBy(() -> S3FencedStore.create(S3_CLIENT, "bad\tbucket"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket must not contain control characters, got 'bad?bucket'");
    }

    @Test
    void thePrefixLeavesRoomForAKey() {
        assertThatThrownBy(() -> S3FencedStore.builder(S3_CLIENT, "b").keyPrefix(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix must not be null");
        assertThatThrownBy(() -> S3FencedStore.builder(S3_CLIENT, "b").keyPrefix("p".repeat(1024)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must be at most 1023 bytes of UTF-8")
                .hasMessageContaining("got 1024 bytes starting 'pppp");
        S3FencedStore.builder(S3_CLIENT, "b").keyPrefix("p".repeat(1023)).keyPrefix("");
    }

    @Test
    void policyListenerAndTimeoutAreChecked() {
        S3FencedStore.Builder builder = S3FencedStore.builder(S3_CLIENT, "b");
        assertThatThrownBy(() -> builder.policy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy must not be null");
        assertThatThrownBy(() -> builder.listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener must not be null");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ofMillis(99)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout must be between PT0.1S and PT1H, got PT0.099S");
    }
}
