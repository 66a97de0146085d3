package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.io.IOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Lost replies on DynamoDB (found by the adversarial review, branch attack-stores): the server applies
 * a conditional write, its reply is lost (the proxy closes the connection). Before the fix the SDK
 * retried on its own; the retry's condition no longer held, and the toolkit re-applied an update
 * (MONOTONIC), called the holder's own landed write stale (STRICT), or — for a caller's own debit
 * whose condition still held — debited twice. The guarantee now: at most once, and the caller is told
 * "written" (the item carries this write's id) or {@link WriteOutcomeUnknownException}.
 *
 * <p>{@link DynamoDbFencedStore}'s lost replies are the contract's ({@link DynamoDbFencedStoreIT});
 * these are the wrappers' beyond it: the caller's own debit, sync and async, and a re-send below the SDK.
 */
class DynamoLostReplyIT {

    private static DynamoDbClient direct;
    private static String table;
    private ReplyDroppingProxy proxy;
    private DynamoDbClient viaProxy;

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
    void startProxy() {
        proxy = ReplyDroppingProxy.inFrontOf(TestServers.dynamoDb().endpoint());
        viaProxy = Dynamo.client(proxy.httpEndpoint()); // the holder's own client, as another process would have
    }

    @AfterEach
    void stopProxy() {
        viaProxy.close();
        proxy.close();
    }

    private static String balance(String key) {
        return direct.getItem(r -> r.tableName(table).key(Map.of("pk", AttributeValue.fromS(key))).consistentRead(true))
                .item().get("balance").n();
    }

    /**
     * The debit of docs/dynamodb.md ({@code SET balance = balance - :amount}) on the low-level wrapper. Before
     * the fix the SDK's retry passed the caller's condition again and debited twice.
     */
    @Test
    void aLostReplyToAFencedLowLevelUpdateDebitsOnce() {
        FencedDynamoDb fenced = FencedDynamoDb.create(viaProxy);
        String key = "account-" + System.nanoTime();
        Map<String, AttributeValue> pk = Map.of("pk", AttributeValue.fromS(key));
        FencingToken token = FencingToken.of(key, 9);
        fenced.putItem(token, PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(key), "balance", AttributeValue.fromN("100"))).build());

        proxy.dropNextReply();
        fenced.updateItem(token, debit(table, pk));

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(balance(key)).as("one fenced debit of 30 from 100").isEqualTo("70");
    }

    /** The same debit through the async wrapper: once, and the future completes normally. */
    @Test
    void aLostReplyToAnAsyncFencedUpdateDebitsOnce() {
        try (DynamoDbAsyncClient async = Dynamo.asyncClient(proxy.httpEndpoint())) {
            FencedDynamoDbAsync fenced = FencedDynamoDbAsync.create(async);
            String key = "async-account-" + System.nanoTime();
            Map<String, AttributeValue> pk = Map.of("pk", AttributeValue.fromS(key));
            FencingToken token = FencingToken.of(key, 9);
            fenced.putItem(token, PutItemRequest.builder().tableName(table)
                    .item(Map.of("pk", AttributeValue.fromS(key), "balance", AttributeValue.fromN("100"))).build()).join();

            proxy.dropNextReply();
            fenced.updateItem(token, debit(table, pk)).join();

            assertThat(proxy.dropped()).isEqualTo(1);
            assertThat(balance(key)).as("one fenced debit of 30 from 100").isEqualTo("70");
        }
    }

    /** Async, with a same-token debit in the window: the future fails with the unknown outcome, two debits in all. */
    @Test
    void anAsyncLostReplyWithASameTokenWriterInTheWindowIsUnknownNeverDoubled() {
        try (DynamoDbAsyncClient async = Dynamo.asyncClient(proxy.httpEndpoint())) {
            FencedDynamoDbAsync fenced = FencedDynamoDbAsync.create(async);
            FencedDynamoDb other = FencedDynamoDb.create(direct);
            String key = "async-window-" + System.nanoTime();
            Map<String, AttributeValue> pk = Map.of("pk", AttributeValue.fromS(key));
            FencingToken token = FencingToken.of(key, 9);
            fenced.putItem(token, PutItemRequest.builder().tableName(table)
                    .item(Map.of("pk", AttributeValue.fromS(key), "balance", AttributeValue.fromN("100"))).build()).join();

            proxy.dropNextReply(() -> other.updateItem(token, debit(table, pk)));
            assertThatThrownBy(() -> fenced.updateItem(token, debit(table, pk)).join())
                    .isInstanceOf(CompletionException.class).hasCauseInstanceOf(WriteOutcomeUnknownException.class);

            assertThat(proxy.dropped()).isEqualTo(1);
            assertThat(balance(key)).as("two debits of 30, each once").isEqualTo("40");
        }
    }

    /**
     * An HTTP client that re-sends a request once after an I/O error, below the SDK's retry strategy —
     * as the JDK's HttpURLConnection does for a non-streamed POST unless {@code sun.net.http.retryPost}
     * is false. The fenced write's condition excludes its own write id, so the re-send of a landed
     * debit fails its condition, shows the write id, and the caller is told "written": one debit.
     */
    @Test
    void aReSendBelowTheSdkDebitsOnceAndSaysWritten() {
        try (DynamoDbClient resending = DynamoDbClient.builder()
                .endpointOverride(URI.create(proxy.httpEndpoint()))
                .region(Region.of(dev.fencing.testkit.servers.DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(new ResendingHttpClient())
                .build()) {
            FencedDynamoDb fenced = FencedDynamoDb.create(resending);
            String key = "resent-" + System.nanoTime();
            Map<String, AttributeValue> pk = Map.of("pk", AttributeValue.fromS(key));
            FencingToken token = FencingToken.of(key, 9);
            fenced.putItem(token, PutItemRequest.builder().tableName(table)
                    .item(Map.of("pk", AttributeValue.fromS(key), "balance", AttributeValue.fromN("100"))).build());

            proxy.dropNextReply();
            fenced.updateItem(token, debit(table, pk));

            assertThat(proxy.dropped()).isEqualTo(1);
            assertThat(balance(key)).as("one fenced debit of 30 from 100, re-sent below the SDK").isEqualTo("70");
        }
    }

    /** Re-sends a request once after an I/O error, as HttpURLConnection does on its own. */
    private static final class ResendingHttpClient implements SdkHttpClient {
        private final SdkHttpClient delegate = UrlConnectionHttpClient.create();

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            ExecutableHttpRequest first = delegate.prepareRequest(request);
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() throws IOException {
                    try {
                        return first.call();
                    } catch (IOException lost) {
                        return delegate.prepareRequest(request).call();
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

    private static UpdateItemRequest debit(String table, Map<String, AttributeValue> pk) {
        return UpdateItemRequest.builder().tableName(table).key(pk)
                .updateExpression("SET balance = balance - :amount")
                .conditionExpression("balance >= :amount")
                .expressionAttributeValues(Map.of(":amount", AttributeValue.fromN("30")))
                .build();
    }
}
