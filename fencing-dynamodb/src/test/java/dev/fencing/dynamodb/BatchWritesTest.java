package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/** A fenced batch as one transaction, as pure logic (dynalite has no TransactWriteItems to run it on). */
class BatchWritesTest {

    private final RequestFencer fencer = new RequestFencer("fencing_token", "fencing_deleted", Policy.MONOTONIC);
    private final FencingToken token = FencingToken.of("batch", 6);

    private static WriteRequest put(String id) {
        return WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of("pk", AttributeValue.fromS(id),
                "v", AttributeValue.fromS(""))).build()).build();
    }

    private static WriteRequest delete(String id) {
        return WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(Map.of("pk", AttributeValue.fromS(id)))
                .build()).build();
    }

    private BatchWrites.Plan plan(Map<String, List<WriteRequest>> writes) {
        return BatchWrites.plan(fencer, token, BatchWriteItemRequest.builder().requestItems(writes)
                .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL).build(), table -> List.of("pk"));
    }

    @Test
    void eachPutCarriesTheTokenAndItsConditionAndEachDeleteBecomesATombstone() {
        Map<String, List<WriteRequest>> writes = new LinkedHashMap<>();
        writes.put("accounts", List.of(put("a"), delete("b")));
        writes.put("audit", List.of(put("a")));
        BatchWrites.Plan plan = plan(writes);

        List<TransactWriteItem> items = plan.request().transactItems();
        assertThat(items).hasSize(3).allSatisfy(item -> {
            Put put = item.put();
            assertThat(put).as("every action is a conditional put").isNotNull();
            assertThat(put.conditionExpression()).isEqualTo("(attribute_not_exists(#fencing_resource) OR #fencing_resource = :fencing_resource) AND (attribute_not_exists(#fencing_token) OR #fencing_token <= :fencing_token)");
            assertThat(put.expressionAttributeNames()).containsEntry("#fencing_token", "fencing_token")
                    .containsEntry("#fencing_resource", "fencing_resource");
            assertThat(put.expressionAttributeValues()).containsEntry(":fencing_token", AttributeValue.fromN("6"))
                    .as("the condition binds the item to the batch's lock").containsEntry(":fencing_resource",
                            AttributeValue.fromS("batch"));
            assertThat(put.item()).containsEntry("fencing_token", AttributeValue.fromN("6"))
                    .as("the item is bound to the batch's lock").containsEntry("fencing_resource", AttributeValue.fromS("batch"));
            assertThat(put.returnValuesOnConditionCheckFailureAsString()).isEqualTo("ALL_OLD");
        });
        assertThat(items.get(0).put().item()).containsEntry("v", AttributeValue.fromS("")).doesNotContainKey("fencing_deleted");
        assertThat(items.get(1).put().item()).isEqualTo(Map.of("pk", AttributeValue.fromS("b"),
                "fencing_token", AttributeValue.fromN("6"), "fencing_resource", AttributeValue.fromS("batch"),
                "fencing_deleted", AttributeValue.fromBool(true)));
        assertThat(items).extracting(item -> item.put().tableName()).containsExactly("accounts", "accounts", "audit");
        assertThat(plan.targets()).extracting(BatchWrites.Target::table).containsExactly("accounts", "accounts", "audit");
        assertThat(plan.request().returnConsumedCapacity()).isEqualTo(ReturnConsumedCapacity.TOTAL);
    }

    @Test
    void aHundredWritesAreOneTransactionAndOneMoreIsRefused() {
        List<WriteRequest> writes = new ArrayList<>();
        for (int i = 0; i < BatchWrites.MAX_ITEMS; i++) {
            writes.add(put("k" + i));
        }
        assertThat(plan(Map.of("t", writes)).request().transactItems()).hasSize(100);
        writes.add(put("one-more"));
        assertThatThrownBy(() -> plan(Map.of("t", writes))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 100 writes; this batch has 101");
    }

    @Test
    void theSameItemTwiceIsRefusedButTheSameKeyInAnotherTableIsNot() {
        assertThatThrownBy(() -> plan(Map.of("t", List.of(put("a"), delete("a"))))).hasMessageContaining("t{pk=a} twice");
        assertThatThrownBy(() -> plan(Map.of("t", List.of()))).hasMessageContaining("no write requests");
        assertThatThrownBy(() -> plan(Map.of("t", List.of(WriteRequest.builder().build()))))
                .hasMessageContaining("exactly one of PutRequest and DeleteRequest");
    }

    @Test
    void aCancelledTransactionIsStaleOnlyWhereAFencedActionMetANewerToken() {
        List<BatchWrites.Target> targets = List.of(new BatchWrites.Target("t", Map.of("pk", AttributeValue.fromS("a"))),
                new BatchWrites.Target("t", Map.of("pk", AttributeValue.fromS("b"))));
        AtomicInteger reads = new AtomicInteger();
        TransactionCanceledException withItem = cancelled(CancellationReason.builder().code("None").build(),
                CancellationReason.builder().code("ConditionalCheckFailed")
                        .item(Map.of("fencing_token", AttributeValue.fromN("7"))).build());
        assertThat(BatchWrites.staleOr(withItem, token, targets, fencer, (table, key) -> {
            reads.incrementAndGet();
            return Map.of();
        })).isInstanceOf(StaleTokenException.class).hasMessageContaining("t{pk=b}")
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(7));
        assertThat(reads).as("the returned item was used").hasValue(0);

        TransactionCanceledException noItem = cancelled(CancellationReason.builder().code("ConditionalCheckFailed").build());
        assertThat(BatchWrites.staleOr(noItem, token, targets, fencer,
                (table, key) -> Map.of("fencing_token", AttributeValue.fromN("9")))).isInstanceOf(StaleTokenException.class);
        assertThat(BatchWrites.staleOr(noItem, token, targets, fencer,
                (table, key) -> Map.of("fencing_token", AttributeValue.fromN("6"))))
                .as("the item moved on since: not stale for this token").isSameAs(noItem);
        TransactionCanceledException conflict = cancelled(CancellationReason.builder().code("TransactionConflict").build());
        assertThat(BatchWrites.staleOr(conflict, token, targets, fencer, (table, key) -> Map.of())).isSameAs(conflict);
        List<BatchWrites.Target> callersOwn = new ArrayList<>();
        callersOwn.add(null);
        assertThat(BatchWrites.staleOr(withItem, token, callersOwn, fencer, (table, key) -> Map.of()))
                .as("the caller's own action failing is the caller's condition").isSameAs(withItem);
    }

    @Test
    void aCancelledTransactionIsForeignWhereAFencedActionMetAnItemOfAnotherLock() {
        List<BatchWrites.Target> targets = List.of(new BatchWrites.Target("t", Map.of("pk", AttributeValue.fromS("a"))),
                new BatchWrites.Target("t", Map.of("pk", AttributeValue.fromS("b"))));
        TransactionCanceledException returned = cancelled(CancellationReason.builder().code("None").build(),
                CancellationReason.builder().code("ConditionalCheckFailed").item(Map.of("fencing_token",
                        AttributeValue.fromN("1"), "fencing_resource", AttributeValue.fromS("other-lock"))).build());
        assertThat(BatchWrites.staleOr(returned, token, targets, fencer, (table, key) -> Map.of()))
                .as("a lower token of another lock is not comparable: refused as foreign, not accepted")
                .isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                    assertThat(e.boundResource()).isEqualTo("other-lock");
                    assertThat(e.key()).isEqualTo("t{pk=b}");
                });
        TransactionCanceledException noItem = cancelled(CancellationReason.builder().code("ConditionalCheckFailed").build());
        assertThat(BatchWrites.staleOr(noItem, token, targets, fencer, (table, key) -> Map.of("fencing_token",
                AttributeValue.fromN("9"), "fencing_resource", AttributeValue.fromS("other-lock"))))
                .as("the item read back (a server that returns none)").isInstanceOf(ForeignTokenException.class);
    }

    private static TransactionCanceledException cancelled(CancellationReason... reasons) {
        return TransactionCanceledException.builder().cancellationReasons(reasons)
                .message("cancelled").build();
    }
}
