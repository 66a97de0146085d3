package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Condition;
import software.amazon.awssdk.services.dynamodb.model.ConditionalOperator;
import software.amazon.awssdk.services.dynamodb.model.Get;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;

/** Request and response shaping of tombstone-free reads, as pure logic (TransactGetItems has no server here). */
class TombstoneReadsTest {

    private static final AttributeValue TRUE = AttributeValue.fromBool(true);

    private final TombstoneReads reads = new TombstoneReads("fencing_deleted");

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("pk", AttributeValue.fromS(id));
    }

    @Test
    void onlyABooleanTrueMarksATombstone() {
        assertThat(reads.isTombstone(Map.of("fencing_deleted", TRUE))).isTrue();
        assertThat(reads.isTombstone(Map.of("fencing_deleted", AttributeValue.fromBool(false)))).isFalse();
        assertThat(reads.isTombstone(Map.of("fencing_deleted", AttributeValue.fromS("true")))).isFalse();
        assertThat(reads.isTombstone(Map.of())).isFalse();
        assertThat(reads.isTombstone(null)).isFalse();
    }

    @Test
    void theQueryFilterIsAndedWithTheCallersAndItsPlaceholdersAvoidTheCallers() {
        QueryRequest shaped = reads.exclude(QueryRequest.builder().tableName("t")
                .keyConditionExpression("pk = :fencing_deleted")
                .filterExpression("#fencing_deleted > :n")
                .expressionAttributeNames(Map.of("#fencing_deleted", "balance"))
                .expressionAttributeValues(Map.of(":fencing_deleted", AttributeValue.fromS("k"), ":n", AttributeValue.fromN("1")))
                .build());
        assertThat(shaped.filterExpression()).isEqualTo("(#fencing_deleted > :n) AND (attribute_not_exists(#fencing_deleted_1)"
                + " OR #fencing_deleted_1 <> :fencing_deleted_1)");
        assertThat(shaped.expressionAttributeNames()).containsEntry("#fencing_deleted", "balance")
                .containsEntry("#fencing_deleted_1", "fencing_deleted");
        assertThat(shaped.expressionAttributeValues()).containsEntry(":fencing_deleted", AttributeValue.fromS("k"))
                .containsEntry(":fencing_deleted_1", TRUE);
        assertThat(shaped.keyConditionExpression()).isEqualTo("pk = :fencing_deleted");
    }

    @Test
    void aProjectionGetsTheMarkerUnlessItAlreadyHasItAndTheAnswerLosesItAgain() {
        TombstoneReads.Marked<GetItemRequest, Boolean> marked = reads.mark(GetItemRequest.builder().tableName("t")
                .key(key("a")).projectionExpression("balance, #n").expressionAttributeNames(Map.of("#n", "note")).build());
        assertThat(marked.marked()).isTrue();
        assertThat(marked.request().projectionExpression()).isEqualTo("balance, #n, #fencing_deleted");
        assertThat(marked.request().expressionAttributeNames()).containsEntry("#fencing_deleted", "fencing_deleted");

        for (GetItemRequest already : List.of(
                GetItemRequest.builder().tableName("t").key(key("a")).projectionExpression("balance, fencing_deleted").build(),
                GetItemRequest.builder().tableName("t").key(key("a")).projectionExpression("#d")
                        .expressionAttributeNames(Map.of("#d", "fencing_deleted")).build(),
                GetItemRequest.builder().tableName("t").key(key("a")).build(),
                GetItemRequest.builder().tableName("t").key(key("a")).attributesToGet("fencing_deleted").build())) {
            TombstoneReads.Marked<GetItemRequest, Boolean> same = reads.mark(already);
            assertThat(same.marked()).as(already.toString()).isFalse();
            assertThat(same.request()).isEqualTo(already);
        }
        assertThat(reads.mark(GetItemRequest.builder().tableName("t").key(key("a")).attributesToGet("balance").build())
                .request().attributesToGet()).containsExactly("balance", "fencing_deleted");
    }

    @Test
    void aBatchGetDropsTombstonesAndStripsTheMarkerOnlyWhereItWasAdded() {
        TombstoneReads.Marked<BatchGetItemRequest, Set<String>> marked = reads.mark(BatchGetItemRequest.builder()
                .requestItems(Map.of(
                        "projected", KeysAndAttributes.builder().keys(List.of(key("a"))).projectionExpression("v").build(),
                        "whole", KeysAndAttributes.builder().keys(List.of(key("a"))).build()))
                .build());
        assertThat(marked.marked()).containsExactly("projected");
        BatchGetItemResponse answer = BatchGetItemResponse.builder().responses(Map.of(
                "projected", List.of(Map.of("v", AttributeValue.fromS("")), Map.of("fencing_deleted", TRUE)),
                "whole", List.of(Map.of("pk", AttributeValue.fromS("a"), "fencing_deleted", TRUE),
                        Map.of("pk", AttributeValue.fromS("b")))))
                .unprocessedKeys(Map.of("whole", KeysAndAttributes.builder().keys(List.of(key("c"))).build()))
                .build();
        BatchGetItemResponse present = reads.present(answer, marked.marked());
        assertThat(present.responses().get("projected")).containsExactly(Map.of("v", AttributeValue.fromS("")));
        assertThat(present.responses().get("whole")).containsExactly(Map.of("pk", AttributeValue.fromS("b")));
        assertThat(present.unprocessedKeys()).isEqualTo(answer.unprocessedKeys());
    }

    @Test
    void aTransactGetKeepsPositionsAndReportsATombstoneAsAnEmptyResponse() {
        TombstoneReads.Marked<TransactGetItemsRequest, Set<Integer>> marked = reads.mark(TransactGetItemsRequest.builder()
                .transactItems(
                        TransactGetItem.builder().get(Get.builder().tableName("t").key(key("a")).build()).build(),
                        TransactGetItem.builder().get(Get.builder().tableName("t").key(key("b")).projectionExpression("v")
                                .build()).build(),
                        TransactGetItem.builder().get(Get.builder().tableName("t").key(key("c")).projectionExpression("v")
                                .build()).build())
                .build());
        assertThat(marked.marked()).containsExactlyInAnyOrder(1, 2);
        assertThat(marked.request().transactItems().get(1).get().projectionExpression()).isEqualTo("v, #fencing_deleted");

        TransactGetItemsResponse present = reads.present(TransactGetItemsResponse.builder().responses(
                ItemResponse.builder().item(Map.of("pk", AttributeValue.fromS("a"), "fencing_deleted", TRUE)).build(),
                ItemResponse.builder().item(Map.of("v", AttributeValue.fromS("x"), "fencing_deleted", TRUE)).build(),
                ItemResponse.builder().item(Map.of("v", AttributeValue.fromS("y"))).build()).build(), marked.marked());
        assertThat(present.responses()).hasSize(3);
        assertThat(present.responses().get(0).hasItem()).isFalse();
        assertThat(present.responses().get(1).hasItem()).isFalse();
        assertThat(present.responses().get(2).item()).isEqualTo(Map.of("v", AttributeValue.fromS("y")));
    }

    @Test
    void aPageOfQueryOrScanLosesItsTombstonesAndKeepsItsOrder() {
        Map<String, AttributeValue> a = Map.of("pk", AttributeValue.fromS("a"));
        Map<String, AttributeValue> gone = Map.of("pk", AttributeValue.fromS("b"), "fencing_deleted", TRUE);
        Map<String, AttributeValue> c = Map.of("pk", AttributeValue.fromS("c"), "fencing_deleted",
                AttributeValue.fromBool(false));

        assertThat(reads.present(List.of(a, gone, c))).containsExactly(a, c);
        assertThat(reads.present(List.of(gone))).isEmpty();
        assertThat(reads.present(List.of())).isEmpty();
    }

    @Test
    void aScanWithoutFilterGetsTheTombstoneFilterAloneAndKeepsTheCallersPlaceholders() {
        ScanRequest shaped = reads.exclude(ScanRequest.builder().tableName("t").projectionExpression("#p, pk")
                .expressionAttributeNames(Map.of("#p", "payload")).build());

        assertThat(shaped.filterExpression())
                .isEqualTo("attribute_not_exists(#fencing_deleted) OR #fencing_deleted <> :fencing_deleted");
        assertThat(shaped.expressionAttributeNames()).containsOnly(Map.entry("#p", "payload"),
                Map.entry("#fencing_deleted", "fencing_deleted"));
        assertThat(shaped.expressionAttributeValues()).containsOnly(Map.entry(":fencing_deleted", TRUE));
        assertThat(shaped.projectionExpression()).isEqualTo("#p, pk");
    }

    @Test
    void aScanFilterIsAndedWithTheCallersAndKeepsItsValues() {
        ScanRequest shaped = reads.exclude(ScanRequest.builder().tableName("t").filterExpression("n > :min")
                .expressionAttributeValues(Map.of(":min", AttributeValue.fromN("3"))).build());

        assertThat(shaped.filterExpression()).isEqualTo(
                "(n > :min) AND (attribute_not_exists(#fencing_deleted) OR #fencing_deleted <> :fencing_deleted)");
        assertThat(shaped.expressionAttributeValues()).containsEntry(":min", AttributeValue.fromN("3"))
                .containsEntry(":fencing_deleted", TRUE);
    }

    @Test
    void aQueryPlaceholderUsedInTheProjectionIsNotTaken() {
        QueryRequest shaped = reads.exclude(QueryRequest.builder().tableName("t").keyConditionExpression("pk = :k")
                .projectionExpression("#fencing_deleted")
                .expressionAttributeValues(Map.of(":k", AttributeValue.fromS("x"))).build());

        assertThat(shaped.filterExpression()).contains("#fencing_deleted_1").doesNotContain("(#fencing_deleted)");
        assertThat(shaped.expressionAttributeValues()).containsEntry(":k", AttributeValue.fromS("x"));
    }

    @Test
    void legacyParametersOfQueryAndScanAreRefusedByName() {
        Condition equalsOne = Condition.builder().comparisonOperator("EQ")
                .attributeValueList(AttributeValue.fromN("1")).build();
        assertThatThrownBy(() -> reads.exclude(QueryRequest.builder().tableName("t")
                .keyConditions(Map.of("pk", equalsOne)).build())).hasMessageContaining("'KeyConditions'");
        assertThatThrownBy(() -> reads.exclude(QueryRequest.builder().tableName("t")
                .queryFilter(Map.of("n", equalsOne)).build())).hasMessageContaining("'QueryFilter'");
        assertThatThrownBy(() -> reads.exclude(QueryRequest.builder().tableName("t")
                .attributesToGet("n").build())).hasMessageContaining("'AttributesToGet'");
        assertThatThrownBy(() -> reads.exclude(QueryRequest.builder().tableName("t")
                .conditionalOperator(ConditionalOperator.AND).build())).hasMessageContaining("'ConditionalOperator'");
        assertThatThrownBy(() -> reads.exclude(ScanRequest.builder().tableName("t")
                .scanFilter(Map.of("n", equalsOne)).build())).hasMessageContaining("'ScanFilter'");
        assertThatThrownBy(() -> reads.exclude(ScanRequest.builder().tableName("t")
                .attributesToGet("n").build())).hasMessageContaining("'AttributesToGet'");
        assertThatThrownBy(() -> reads.exclude(ScanRequest.builder().tableName("t")
                .conditionalOperator(ConditionalOperator.OR).build())).hasMessageContaining("'ConditionalOperator'");
    }

    @Test
    void emptyLegacyParametersAreNoReason() {
        assertThat(reads.exclude(QueryRequest.builder().tableName("t").keyConditionExpression("pk = :k")
                .keyConditions(Map.of()).queryFilter(Map.of()).attributesToGet(List.of()).build()).filterExpression())
                .contains("#fencing_deleted");
        assertThat(reads.exclude(ScanRequest.builder().tableName("t").scanFilter(Map.of())
                .attributesToGet(List.of()).build()).filterExpression()).contains("#fencing_deleted");
    }

    private static final AttributeValue FALSE = AttributeValue.fromBool(false);

    @Test
    void aGetAnswerLosesATombstoneAndTheMarkerOnlyWhereItWasAdded() {
        Map<String, AttributeValue> live = Map.of("v", AttributeValue.fromS("x"), "fencing_deleted", FALSE);
        assertThat(reads.present(GetItemResponse.builder().item(Map.of("v", AttributeValue.fromS("x"),
                "fencing_deleted", TRUE)).build(), true).hasItem()).isFalse();
        assertThat(reads.present(GetItemResponse.builder().item(Map.of("fencing_deleted", TRUE)).build(), false)
                .hasItem()).isFalse();
        assertThat(reads.present(GetItemResponse.builder().item(live).build(), true).item())
                .isEqualTo(Map.of("v", AttributeValue.fromS("x")));
        assertThat(reads.present(GetItemResponse.builder().item(live).build(), false).item()).isEqualTo(live);
        assertThat(reads.present(GetItemResponse.builder().item(Map.of("v", AttributeValue.fromS("x"))).build(), true)
                .item()).isEqualTo(Map.of("v", AttributeValue.fromS("x")));
        GetItemResponse none = GetItemResponse.builder().build();
        assertThat(reads.present(none, true)).isSameAs(none);
    }

    @Test
    void aBatchGetWithAttributesToGetIsMarkedUnlessItAsksForTheMarker() {
        TombstoneReads.Marked<BatchGetItemRequest, Set<String>> marked = reads.mark(BatchGetItemRequest.builder()
                .requestItems(Map.of(
                        "listed", KeysAndAttributes.builder().keys(List.of(key("a"))).attributesToGet("v").build(),
                        "asks", KeysAndAttributes.builder().keys(List.of(key("a")))
                                .attributesToGet("v", "fencing_deleted").build()))
                .build());
        assertThat(marked.marked()).containsExactly("listed");
        assertThat(marked.request().requestItems().get("listed").attributesToGet()).containsExactly("v",
                "fencing_deleted");
        BatchGetItemResponse present = reads.present(BatchGetItemResponse.builder().responses(Map.of(
                "listed", List.of(Map.of("v", AttributeValue.fromS("1"), "fencing_deleted", FALSE)),
                "asks", List.of(Map.of("v", AttributeValue.fromS("2"), "fencing_deleted", FALSE)))).build(),
                marked.marked());
        assertThat(present.responses().get("listed")).containsExactly(Map.of("v", AttributeValue.fromS("1")));
        assertThat(present.responses().get("asks")).containsExactly(Map.of("v", AttributeValue.fromS("2"),
                "fencing_deleted", FALSE));
        BatchGetItemResponse empty = BatchGetItemResponse.builder().build();
        assertThat(reads.present(empty, Set.of("listed"))).isSameAs(empty);
    }

    @Test
    void aTransactGetStripsTheMarkerOnlyAtMarkedPositions() {
        Map<String, AttributeValue> live = Map.of("v", AttributeValue.fromS("x"), "fencing_deleted", FALSE);
        TransactGetItemsResponse present = reads.present(TransactGetItemsResponse.builder().responses(
                ItemResponse.builder().item(live).build(), ItemResponse.builder().item(live).build(),
                ItemResponse.builder().build()).build(), Set.of(1));
        assertThat(present.responses().get(0).item()).isEqualTo(live);
        assertThat(present.responses().get(1).item()).isEqualTo(Map.of("v", AttributeValue.fromS("x")));
        assertThat(present.responses().get(2).hasItem()).isFalse();
        TransactGetItemsResponse empty = TransactGetItemsResponse.builder().build();
        assertThat(reads.present(empty, Set.of(0))).isSameAs(empty);
    }
}
