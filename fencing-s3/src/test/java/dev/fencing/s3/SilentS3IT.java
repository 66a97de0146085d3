package dev.fencing.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.testkit.servers.S3TestServer;
import dev.fencing.testkit.servers.SilentServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 endpoint that accepts TCP and never answers: every request of the toolkit gives up within
 * its {@code requestTimeout} (plus a slack of 1.5 s), with an {@link SdkClientException} naming the
 * endpoint, the bucket and the bound; a shorter setting gives up sooner, and a client whose own
 * {@code apiCallTimeout} is shorter keeps it. Before, the SDK's defaults decided (123 s measured
 * from the CLI: 30 s socket timeouts, retried).
 */
@Timeout(60)
class SilentS3IT {

    private static final Duration SLACK = Duration.ofMillis(1500);
    private static final FencingToken TOKEN = new FencingToken("silent", 7);

    private final SilentServer silent = SilentServer.start();
    private final S3Client s3 = S3Client.builder().endpointOverride(URI.create("http://" + silent.hostPort()))
            .forcePathStyle(true).region(Region.of(S3TestServer.REGION))
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .httpClient(UrlConnectionHttpClient.create()).build();

    @AfterEach
    void close() {
        s3.close();
        silent.close();
    }

    private void givesUpWithin(Duration bound, ThrowingCallable call) {
        givesUpWithin(bound, "requestTimeout", call);
    }

    private void givesUpWithin(Duration bound, String setting, ThrowingCallable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call).satisfies(e -> {
            Throwable cause = e instanceof CompletionException ? e.getCause() : e;
            if (cause instanceof StoreUnavailableException unavailable) { // a FencedStore's, naming the SDK's
                cause = unavailable.getCause();
            }
            assertThat(cause).isInstanceOf(SdkClientException.class).hasMessageContaining(
                    "S3 at http://" + silent.hostPort() + " did not answer").hasMessageContaining("bucket 'b'")
                    .hasMessageContaining("within " + setting + " " + bound.toMillis() + " ms");
        });
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("gave up after %s with requestTimeout %s", took, bound)
                .isBetween(bound.minusMillis(100), bound.plus(SLACK));
    }

    @Test
    void fencedS3GivesUpWithinItsRequestTimeout() {
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            FencedS3 fenced = FencedS3.builder(s3).requestTimeout(bound).build();
            givesUpWithin(bound, () -> fenced.highWaterMark("b", "k"));
        }
        FencedS3 fenced = FencedS3.builder(s3).requestTimeout(Duration.ofSeconds(1)).build();
        givesUpWithin(Duration.ofSeconds(1), () -> fenced.putObject(TOKEN,
                software.amazon.awssdk.services.s3.model.PutObjectRequest.builder().bucket("b").key("k").build(),
                RequestBody.fromString("x")));
    }

    @Test
    void fencedS3AsyncGivesUpWithinItsRequestTimeout() {
        try (S3AsyncClient async = S3AsyncClient.builder().endpointOverride(URI.create("http://" + silent.hostPort()))
                .forcePathStyle(true).region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(NettyNioAsyncHttpClient.create()).build()) {
            for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
                FencedS3Async fenced = FencedS3Async.builder(async).requestTimeout(bound).build();
                givesUpWithin(bound, () -> fenced.highWaterMark("b", "k").join());
            }
        }
    }

    @Test
    void theStoreGivesUpWithinItsRequestTimeout() {
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            FencedStore store = S3FencedStore.builder(s3, "b").requestTimeout(bound).build();
            givesUpWithin(bound, () -> store.read("k"));
            assertThatThrownBy(() -> store.read("k")).isInstanceOf(StoreUnavailableException.class);
        }
    }

    @Test
    void aShorterApiCallTimeoutOfTheClientIsKept() {
        try (S3Client impatient = S3Client.builder().endpointOverride(URI.create("http://" + silent.hostPort()))
                .forcePathStyle(true).region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.apiCallTimeout(Duration.ofSeconds(1))).build()) {
            FencedS3 fenced = FencedS3.builder(impatient).requestTimeout(Duration.ofSeconds(5)).build();
            givesUpWithin(Duration.ofSeconds(1), "the client's or request's apiCallTimeout",
                    () -> fenced.highWaterMark("b", "k"));
        }
    }

    @Test
    void requestTimeoutIsChecked() {
        assertThatThrownBy(() -> FencedS3.builder(s3).requestTimeout(Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout")
                .hasMessageContaining("PT0.1S");
    }
}
