package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.TestServers;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Adversarial review, issue 50 (guarantees 8 and 11) on DynamoDB.
 *
 * <p>The fenced write lands, its reply is lost, an HTTP client below the SDK re-sends it (as the
 * JDK's HttpURLConnection does for a POST unless {@code sun.net.http.retryPost=false}; the toolkit's
 * own {@code FencedDynamoDb} handles exactly this: "the request was a re-send ... of this very write,
 * which landed"), the re-send fails its condition (it excludes its own write id), and dynalite — the
 * project's DynamoDB test server — returns no ALL_OLD item, so the toolkit reads the item to decide.
 * That read goes unanswered (the link is cut right after the re-send's answer).
 *
 * <p>On S3, Azure and GCS this case ("a 412 that may answer a re-send of our own write, followed by a
 * read that fails") was turned into {@link WriteOutcomeUnknownException} by commits 6255a2d and
 * f249cae. On DynamoDB it is not: {@code FencedDynamoDb.update}'s and {@code throwUnlessLanded}'s
 * {@code read(...)} let the SDK's timeout escape, and the store turns it into
 * {@link StoreUnavailableException} — "nothing was written by this call" — for a write that landed.
 *
 * <p>Chain: client (re-sends once below the SDK) → ReplyDroppingProxy → PartitionProxy → dynalite.
 */
class AttackResentWriteThenSilenceIT {

    private static final String UPDATE_ITEM = "DynamoDB_20120810.UpdateItem";
    private static final String PUT_ITEM = "DynamoDB_20120810.PutItem";

    private static DynamoDbClient direct;
    private static String table;

    private PartitionProxy link;
    private ReplyDroppingProxy dropping;
    private DynamoDbClient resending;

    @BeforeAll
    static void createTable() {
        direct = Dynamo.newClient();
        table = Dynamo.newTable(direct);
    }

    @AfterAll
    static void closeDirect() {
        direct.close();
    }

    @BeforeEach
    void start() {
        URI server = URI.create(TestServers.dynamoDb().endpoint());
        link = PartitionProxy.start(server.getHost(), server.getPort());
        dropping = ReplyDroppingProxy.start("127.0.0.1", link.port());
        resending = DynamoDbClient.builder()
                .endpointOverride(URI.create(dropping.httpEndpoint()))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(new ResendOnceThenCut(link))
                .build();
    }

    @AfterEach
    void stop() {
        link.heal();
        resending.close();
        dropping.close();
        link.close();
    }

    private static FencedStore directStore() {
        return DynamoDbFencedStore.builder(direct, table).build();
    }

    @Test
    void aStoreWriteThatLandedIsNeverStoreUnavailable() {
        RecordingListener events = new RecordingListener();
        FencedStore store = DynamoDbFencedStore.builder(resending, table).requestTimeout(Duration.ofSeconds(1))
                .listener(events).build();
        String key = "attack-write-" + System.nanoTime();
        store.write(FencingToken.of("attack", 4), key, "before"); // warms the table description up

        dropping.dropReplyTo(UPDATE_ITEM, () -> { });
        Throwable thrown = catchThrowable(() -> store.write(FencingToken.of("attack", 5), key, "after"));
        link.heal();

        assertThat(dropping.dropped()).as("the first copy's reply was lost").isEqualTo(1);
        assertThat(directStore().read(key)).as("the write landed").contains(new StoredValue(key, "after", 5));
        assertThat(thrown).as("a write that landed must be 'written' (returns) or WriteOutcomeUnknownException,"
                + " never StoreUnavailableException ('nothing was written by this call'); got: %s", thrown)
                .satisfiesAnyOf(t -> assertThat(t).isNull(),
                        t -> assertThat(t).isInstanceOf(WriteOutcomeUnknownException.class));
    }

    @Test
    void aStoreUpdateThatLandedIsNeverStoreUnavailable() {
        FencedStore store = DynamoDbFencedStore.builder(resending, table).requestTimeout(Duration.ofSeconds(1)).build();
        String key = "attack-update-" + System.nanoTime();
        store.write(FencingToken.of("attack", 4), key, "41");

        dropping.dropReplyTo(UPDATE_ITEM, () -> { });
        Throwable thrown = catchThrowable(() -> store.update(FencingToken.of("attack", 5), key,
                v -> Integer.toString(Integer.parseInt(v.orElseThrow()) + 1)));
        link.heal();

        assertThat(dropping.dropped()).isEqualTo(1);
        assertThat(directStore().read(key)).as("the update landed").contains(new StoredValue(key, "42", 5));
        assertThat(thrown).as("an update that landed must be 'written' or WriteOutcomeUnknownException, never"
                + " StoreUnavailableException; got: %s", thrown)
                .satisfiesAnyOf(t -> assertThat(t).isNull(),
                        t -> assertThat(t).isInstanceOf(WriteOutcomeUnknownException.class));
    }

    /** The wrapper (guarantee 8: written, refused or WriteOutcomeUnknownException): a raw SDK timeout instead. */
    @Test
    void aWrapperPutThatLandedIsWrittenOrUnknownNotARawTimeout() {
        FencedDynamoDb fenced = FencedDynamoDb.builder(resending).requestTimeout(Duration.ofSeconds(1)).build();
        String key = "attack-put-" + System.nanoTime();
        FencingToken token = FencingToken.of("attack", 5);
        fenced.putItem(FencingToken.of("attack", 4), PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(key), "v", AttributeValue.fromS("before"))).build());

        dropping.dropReplyTo(PUT_ITEM, () -> { });
        Throwable thrown = catchThrowable(() -> fenced.putItem(token, PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(key), "v", AttributeValue.fromS("after"))).build()));
        link.heal();

        assertThat(dropping.dropped()).isEqualTo(1);
        assertThat(direct.getItem(r -> r.tableName(table).key(Map.of("pk", AttributeValue.fromS(key)))
                .consistentRead(true)).item().get("v").s()).as("the put landed").isEqualTo("after");
        assertThat(thrown).as("a put that landed must return or be WriteOutcomeUnknownException; got: %s", thrown)
                .satisfiesAnyOf(t -> assertThat(t).isNull(),
                        t -> assertThat(t).isInstanceOf(WriteOutcomeUnknownException.class));
    }

    /**
     * UrlConnectionHttpClient that, on the first I/O error, re-sends the request once (as
     * HttpURLConnection does by itself for a POST unless sun.net.http.retryPost=false), and once the
     * re-send's answer is in, cuts the link: every later request (the settle read) goes unanswered.
     */
    private static final class ResendOnceThenCut implements SdkHttpClient {
        private final SdkHttpClient delegate = UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(5))
                .build();
        private final PartitionProxy link;
        private final AtomicBoolean resent = new AtomicBoolean();

        ResendOnceThenCut(PartitionProxy link) {
            this.link = link;
        }

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            ExecutableHttpRequest first = delegate.prepareRequest(request);
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() throws IOException {
                    try {
                        return first.call();
                    } catch (IOException lost) {
                        if (!resent.compareAndSet(false, true)) {
                            throw lost;
                        }
                        HttpExecuteResponse second = delegate.prepareRequest(request).call();
                        byte[] body = second.responseBody().isPresent() ? second.responseBody().get().readAllBytes()
                                : new byte[0];
                        link.cut(); // the re-send was answered; from now on the store's server is silent
                        return HttpExecuteResponse.builder().response(second.httpResponse())
                                .responseBody(AbortableInputStream.create(new ByteArrayInputStream(body))).build();
                    }
                }

                @Override
                public void abort() {
                    first.abort();
                }
            };
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
