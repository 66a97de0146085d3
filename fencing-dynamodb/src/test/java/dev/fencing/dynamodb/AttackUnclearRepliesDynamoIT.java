package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.servers.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * ATTACK (adversarial review, branch attack-stores): unclear replies on DynamoDB. The server applies a
 * conditional UpdateItem, its reply is lost (the proxy closes the connection), and the SDK retries
 * the request on its own. The retry's condition no longer holds — the first attempt changed the item
 * — and the toolkit reads that as "someone else changed it": DynamoDbFencedStore.update reloads and
 * applies the change a SECOND time (MONOTONIC), or reports its own landed write as stale (STRICT).
 * Nothing in the write carries a write id the store could recognise as its own on the retry.
 */
class AttackUnclearRepliesDynamoIT {

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

    private static int increment(Optional<String> value) {
        return Integer.parseInt(value.orElse("0")) + 1;
    }

    /** BREAKS "no update is applied twice": one increment, a lost reply, the value goes up by 2. */
    @Test
    void aLostReplyToAnUpdateMakesTheStoreApplyTheIncrementTwice() {
        FencedStore holder = DynamoDbFencedStore.create(viaProxy, table, "pk", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore observer = DynamoDbFencedStore.create(direct, table, "pk", Policy.MONOTONIC, FencingListener.NONE);
        String key = "counter-" + System.nanoTime();
        FencingToken token = FencingToken.of(key, 5);
        holder.write(key, "0", token);

        AtomicBoolean first = new AtomicBoolean(true);
        holder.update(key, token, value -> {
            if (first.getAndSet(false)) {
                proxy.dropNextReply(); // the UpdateItem that follows is applied, its answer lost
            }
            return Integer.toString(increment(value));
        });

        assertThat(proxy.dropped()).as("the proxy dropped the UpdateItem's reply").isEqualTo(1);
        assertThat(observer.read(key)).map(StoredValue::value)
                .as("one update with one increment, its first reply lost and retried by the SDK")
                .contains("1");
    }

    /** BREAKS "a refusal is real": under STRICT the holder's own landed update comes back as a refusal. */
    @Test
    void aLostReplyUnderStrictReportsTheHoldersOwnLandedUpdateAsStale() {
        FencedStore holder = DynamoDbFencedStore.create(viaProxy, table, "pk", Policy.STRICT, FencingListener.NONE);
        FencedStore observer = DynamoDbFencedStore.create(direct, table, "pk", Policy.STRICT, FencingListener.NONE);
        String key = "strict-" + System.nanoTime();
        observer.write(key, "0", FencingToken.of(key, 5));
        holder.write("warm-" + key, "x", FencingToken.of("warm-" + key, 1)); // its DescribeTable is behind us

        AtomicBoolean first = new AtomicBoolean(true);
        Throwable failure = null;
        try {
            holder.update(key, FencingToken.of(key, 6), value -> {
                if (first.getAndSet(false)) {
                    proxy.dropNextReply();
                }
                return Integer.toString(increment(value));
            });
        } catch (RuntimeException e) {
            failure = e;
        }
        assertThat(proxy.dropped()).as("the proxy dropped the UpdateItem's reply").isEqualTo(1);
        assertThat(observer.read(key)).map(StoredValue::value).as("the update did land").contains("1");
        assertThat(failure).as("the caller is told the update it made was refused").isNull();
    }

    /**
     * BREAKS "no update is applied twice" on the low-level wrapper, following the README's own
     * example (SET balance = balance - :amount): a lost reply and the SDK's retry debit twice; the
     * fence (MONOTONIC, same token) lets the retry through as a second write of the same holder.
     */
    @Test
    void aLostReplyToAFencedLowLevelUpdateDebitsTwice() {
        FencedDynamoDb fenced = FencedDynamoDb.create(viaProxy);
        String key = "account-" + System.nanoTime();
        Map<String, AttributeValue> pk = Map.of("pk", AttributeValue.fromS(key));
        FencingToken token = FencingToken.of(key, 9);
        fenced.putItem(token, PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(key), "balance", AttributeValue.fromN("100"))).build());

        proxy.dropNextReply();
        fenced.updateItem(token, UpdateItemRequest.builder().tableName(table).key(pk)
                .updateExpression("SET balance = balance - :amount")
                .conditionExpression("balance >= :amount")
                .expressionAttributeValues(Map.of(":amount", AttributeValue.fromN("30")))
                .build());

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(direct.getItem(r -> r.tableName(table).key(pk).consistentRead(true)).item().get("balance").n())
                .as("one fenced debit of 30 from 100").isEqualTo("70");
    }
}
