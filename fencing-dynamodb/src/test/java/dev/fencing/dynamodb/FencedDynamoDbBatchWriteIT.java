package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.containers.Containers;
import dev.fencing.testkit.containers.RequiresDocker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * {@link FencedDynamoDb#batchWriteItem}: one fenced transaction. dynalite has no transactions, so
 * the writes themselves run only where the server has them (FENCING_DYNAMODB_ENDPOINT, or
 * LocalStack with Docker) and are skipped with a printed reason otherwise; the refusals before
 * any write run everywhere. {@code BatchWritesTest} covers the request shaping as pure logic.
 */
class FencedDynamoDbBatchWriteIT {

    private final DynamoDbClient client = Dynamo.client();
    private final String table = Dynamo.newTable(client);
    private final FencedDynamoDb fenced = FencedDynamoDb.create(client);

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("pk", AttributeValue.fromS(id));
    }

    private static WriteRequest put(String id, long balance) {
        return WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of("pk", AttributeValue.fromS(id),
                "balance", AttributeValue.fromN(Long.toString(balance)))).build()).build();
    }

    private static WriteRequest delete(String id) {
        return WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(key(id)).build()).build();
    }

    private BatchWriteItemRequest batch(String onTable, List<WriteRequest> writes) {
        return BatchWriteItemRequest.builder().requestItems(Map.of(onTable, writes)).build();
    }

    @Test
    void badBatchesAreRefusedBeforeAnyWrite() {
        String id = "b-" + UUID.randomUUID();
        FencingToken token = FencingToken.of(id, 1);
        assertThatThrownBy(() -> fenced.batchWriteItem(token, batch(table, List.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no write requests");
        List<WriteRequest> many = new ArrayList<>();
        for (int i = 0; i <= BatchWrites.MAX_ITEMS; i++) {
            many.add(put(id + "-" + i, i));
        }
        assertThatThrownBy(() -> fenced.batchWriteItem(token, batch(table, many)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 100 writes; this batch has 101");
        assertThatThrownBy(() -> fenced.batchWriteItem(token, batch(table, List.of(put(id, 1), delete(id)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> fenced.batchWriteItem(token, batch(table, List.of(WriteRequest.builder()
                .putRequest(PutRequest.builder().item(Map.of("pk", AttributeValue.fromS(id),
                        "fencing_token", AttributeValue.fromN("99"))).build()).build()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not carry 'fencing_token'");
        assertThat(client.getItem(r -> r.tableName(table).key(key(id))).hasItem()).isFalse();
    }

    @Test
    void onTheTestkitServerWhenItHasTransactions() {
        Dynamo.assumeTransactions(client, table, "FencedDynamoDbBatchWriteIT.onTheTestkitServerWhenItHasTransactions");
        aZombieBatchIsRefusedWhole(client, table);
        aBatchTouchingAKeyOfAnotherLockIsRefusedWhole(client, table);
    }

    @Test
    @RequiresDocker
    void onLocalStack() {
        try (GenericContainer<?> localstack = Containers.localstack()) {
            localstack.start();
            DynamoDbClient onLocalStack = Dynamo.client(Containers.localstackEndpoint(localstack));
            String onTable = Dynamo.newTable(onLocalStack);
            aZombieBatchIsRefusedWhole(onLocalStack, onTable);
            aBatchTouchingAKeyOfAnotherLockIsRefusedWhole(onLocalStack, onTable);
        }
    }

    private void aZombieBatchIsRefusedWhole(DynamoDbClient on, String onTable) {
        FencedDynamoDb wrapper = FencedDynamoDb.create(on);
        String a = "a-" + UUID.randomUUID();
        String b = "b-" + UUID.randomUUID();
        String c = "c-" + UUID.randomUUID();
        String d = "d-" + UUID.randomUUID();
        // one batch = one lock: `a` is bound to the batch's lock by its first write
        wrapper.putItem(FencingToken.of("batch", 5), PutItemRequest.builder().tableName(onTable).item(Map.of(
                "pk", AttributeValue.fromS(a), "balance", AttributeValue.fromN("1"))).build());
        wrapper.batchWriteItem(FencingToken.of("batch", 6), batch(onTable, List.of(put(a, 10), delete(b), put(c, 30))));
        assertThat(wrapper.getItem(GetItemRequest.builder().tableName(onTable).key(key(a)).build()).item())
                .containsEntry("balance", AttributeValue.fromN("10")).containsEntry("fencing_token", AttributeValue.fromN("6"));
        assertThat(wrapper.isTombstone(on.getItem(r -> r.tableName(onTable).key(key(b)).consistentRead(true)).item())).isTrue();

        assertThatThrownBy(() -> wrapper.batchWriteItem(FencingToken.of("batch", 5),
                batch(onTable, List.of(put(d, 40), put(b, 20)))))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(6))
                .hasMessageContaining(b);
        assertThat(on.getItem(r -> r.tableName(onTable).key(key(d)).consistentRead(true)).hasItem())
                .as("all or nothing: the fresh item of the refused batch was not written").isFalse();
        assertThat(wrapper.getItem(GetItemRequest.builder().tableName(onTable).key(key(b)).build()).hasItem()).isFalse();
    }

    /** One batch = one lock: a key bound to another lock refuses the whole batch, as the transaction it is. */
    private void aBatchTouchingAKeyOfAnotherLockIsRefusedWhole(DynamoDbClient on, String onTable) {
        FencedDynamoDb wrapper = FencedDynamoDb.create(on);
        String theirs = "theirs-" + UUID.randomUUID();
        String fresh = "fresh-" + UUID.randomUUID();
        wrapper.putItem(FencingToken.of("other-lock", 1), PutItemRequest.builder().tableName(onTable).item(Map.of(
                "pk", AttributeValue.fromS(theirs), "balance", AttributeValue.fromN("1"))).build());

        assertThatThrownBy(() -> wrapper.batchWriteItem(FencingToken.of("batch", 100),
                batch(onTable, List.of(put(fresh, 40), put(theirs, 20)))))
                .isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.boundResource()).isEqualTo("other-lock");
                    assertThat(e.key()).contains(theirs);
                });
        assertThat(on.getItem(r -> r.tableName(onTable).key(key(fresh)).consistentRead(true)).hasItem())
                .as("all or nothing: the fresh item of the refused batch was not written").isFalse();
        assertThat(on.getItem(r -> r.tableName(onTable).key(key(theirs)).consistentRead(true)).item())
                .containsEntry("balance", AttributeValue.fromN("1")).containsEntry("fencing_resource", AttributeValue.fromS("other-lock"))
                .containsEntry("fencing_token", AttributeValue.fromN("1"));
    }
}
