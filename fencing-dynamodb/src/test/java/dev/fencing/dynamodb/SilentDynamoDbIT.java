package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.SilentServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * A DynamoDB endpoint that accepts TCP and never answers: every request of the toolkit gives up
 * within its {@code requestTimeout} (plus a slack of 1.5 s), with an {@link SdkClientException}
 * naming the endpoint, the table and the bound; a shorter setting gives up sooner, and a client
 * whose own {@code apiCallTimeout} is shorter keeps it. Before, the SDK's defaults decided (285 s
 * measured from the CLI).
 */
@Timeout(60)
class SilentDynamoDbIT {

    private static final Duration SLACK = Duration.ofMillis(1500);
    private static final FencingToken TOKEN = new FencingToken("silent", 7);

    private final SilentServer silent = SilentServer.start();
    private final DynamoDbClient client = DynamoDbClient.builder()
            .endpointOverride(URI.create("http://" + silent.hostPort())).region(Region.of(DynamoDbTestServer.REGION))
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .httpClient(UrlConnectionHttpClient.create()).build();

    @AfterEach
    void close() {
        client.close();
        silent.close();
    }

    private void givesUpWithin(Duration bound, String setting, ThrowingCallable call) {
        long start = System.nanoTime();
        assertThatThrownBy(call).satisfies(e -> {
            Throwable cause = e instanceof CompletionException ? e.getCause() : e;
            if (cause instanceof StoreUnavailableException unavailable) { // a FencedStore's, naming the SDK's
                cause = unavailable.getCause();
            }
            assertThat(cause).isInstanceOf(SdkClientException.class)
                    .hasMessageContaining("DynamoDB at http://" + silent.hostPort() + " did not answer")
                    .hasMessageContaining("table 't'")
                    .hasMessageContaining("within " + setting + " " + bound.toMillis() + " ms");
        });
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("gave up after %s with %s %s", took, setting, bound)
                .isBetween(bound.minusMillis(100), bound.plus(SLACK));
    }

    private static PutItemRequest put() {
        return PutItemRequest.builder().tableName("t").item(Map.of("pk", AttributeValue.fromS("k"))).build();
    }

    @Test
    void fencedDynamoDbGivesUpWithinItsRequestTimeout() {
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            FencedDynamoDb fenced = FencedDynamoDb.builder(client).requestTimeout(bound).build();
            givesUpWithin(bound, "requestTimeout", () -> fenced.putItem(TOKEN, put()));
        }
    }

    @Test
    void fencedDynamoDbAsyncGivesUpWithinItsRequestTimeout() {
        try (DynamoDbAsyncClient async = DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create("http://" + silent.hostPort())).region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(NettyNioAsyncHttpClient.create()).build()) {
            for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
                FencedDynamoDbAsync fenced = FencedDynamoDbAsync.builder(async).requestTimeout(bound).build();
                givesUpWithin(bound, "requestTimeout", () -> fenced.putItem(TOKEN, put()).join());
            }
        }
    }

    @Test
    void theStoreGivesUpWithinItsRequestTimeout() {
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            FencedStore store = DynamoDbFencedStore.builder(client, "t").requestTimeout(bound).build();
            givesUpWithin(bound, "requestTimeout", () -> store.read("k"));
            assertThatThrownBy(() -> store.read("k")).isInstanceOf(StoreUnavailableException.class);
        }
    }

    @Test
    void aShorterApiCallTimeoutOfTheClientIsKept() {
        try (DynamoDbClient impatient = DynamoDbClient.builder()
                .endpointOverride(URI.create("http://" + silent.hostPort())).region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.apiCallTimeout(Duration.ofSeconds(1))).build()) {
            FencedDynamoDb fenced = FencedDynamoDb.builder(impatient).requestTimeout(Duration.ofSeconds(5)).build();
            givesUpWithin(Duration.ofSeconds(1), "the client's or request's apiCallTimeout",
                    () -> fenced.putItem(TOKEN, put()));
        }
    }

    @Test
    void requestTimeoutIsChecked() {
        assertThatThrownBy(() -> FencedDynamoDb.builder(client).requestTimeout(Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout")
                .hasMessageContaining("PT1H");
    }
}
