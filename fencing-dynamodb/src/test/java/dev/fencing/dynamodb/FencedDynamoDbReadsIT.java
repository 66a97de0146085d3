package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.testkit.containers.Containers;
import dev.fencing.testkit.containers.RequiresDocker;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import software.amazon.awssdk.enhanced.dynamodb.Document;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ComparisonOperator;
import software.amazon.awssdk.services.dynamodb.model.Condition;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.Get;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;

/** Low-level reads never hand out a tombstone: GetItem (with projections), Query, Scan, BatchGetItem, TransactGetItems. */
class FencedDynamoDbReadsIT {

    private final DynamoDbClient client = Dynamo.client();
    private final String table = Dynamo.newTable(client);
    private final FencedDynamoDb fenced = FencedDynamoDb.create(client);
    private final String live = "live-" + UUID.randomUUID();
    private final String deleted = "deleted-" + UUID.randomUUID();

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("pk", AttributeValue.fromS(id));
    }

    private void liveAndDeleted(DynamoDbClient on, String onTable) {
        FencedDynamoDb wrapper = FencedDynamoDb.create(on);
        for (String id : List.of(live, deleted)) {
            wrapper.putItem(FencingToken.of(id, 1), PutItemRequest.builder().tableName(onTable).item(Map.of(
                    "pk", AttributeValue.fromS(id), "balance", AttributeValue.fromN("100"))).build());
        }
        wrapper.deleteItem(FencingToken.of(deleted, 2), DeleteItemRequest.builder().tableName(onTable).key(key(deleted)).build());
    }

    @Test
    void getItemWithAProjectionStillRecognisesATombstone() {
        liveAndDeleted(client, table);
        for (String projection : List.of("balance", "pk", "pk, balance")) {
            assertThat(fenced.getItem(GetItemRequest.builder().tableName(table).key(key(deleted))
                    .projectionExpression(projection).build()).hasItem()).as("projection " + projection).isFalse();
        }
        assertThat(fenced.getItem(GetItemRequest.builder().tableName(table).key(key(deleted))
                .projectionExpression("#d").expressionAttributeNames(Map.of("#d", "fencing_deleted")).build()).hasItem())
                .as("the caller projecting the marker itself").isFalse();
        assertThat(fenced.getItem(GetItemRequest.builder().tableName(table).key(key(deleted))
                .attributesToGet("balance").build()).hasItem()).as("legacy AttributesToGet").isFalse();
        assertThat(fenced.getItem(GetItemRequest.builder().tableName(table).key(key(live))
                .projectionExpression("balance").build()).item())
                .as("a live item: exactly what was projected").isEqualTo(Map.of("balance", AttributeValue.fromN("100")));
    }

    @Test
    void queryAndScanDropTombstonesOnTheServerAndKeepTheCallersFilter() {
        liveAndDeleted(client, table);
        for (String id : List.of(live, deleted)) {
            QueryRequest query = fenced.excludeTombstones(QueryRequest.builder().tableName(table)
                    .keyConditionExpression("pk = :fencing_deleted")  // the caller took the placeholder the filter would pick
                    .expressionAttributeValues(Map.of(":fencing_deleted", AttributeValue.fromS(id))).build());
            assertThat(client.query(query).items()).extracting(item -> item.get("pk").s())
                    .containsExactlyElementsOf(id.equals(live) ? List.of(live) : List.of());
        }
        ScanRequest scan = fenced.excludeTombstones(ScanRequest.builder().tableName(table)
                .filterExpression("#fencing_deleted >= :min")
                .expressionAttributeNames(Map.of("#fencing_deleted", "balance"))
                .expressionAttributeValues(Map.of(":min", AttributeValue.fromN("100"))).build());
        assertThat(client.scanPaginator(scan).items().stream().map(item -> item.get("pk").s()).toList())
                .containsExactly(live);
        assertThat(client.scan(fenced.excludeTombstones(ScanRequest.builder().tableName(table)
                .filterExpression("balance > :min").expressionAttributeValues(Map.of(":min", AttributeValue.fromN("100")))
                .build())).items()).as("the caller's own filter still applies").isEmpty();
        assertThat(client.scan(ScanRequest.builder().tableName(table).build()).items())
                .as("a raw scan, which docs/dynamodb.md warns about, does return the tombstone").hasSize(2);
    }

    @Test
    void legacyFiltersAreRefusedBeforeAnyRequest() {
        assertThatThrownBy(() -> fenced.excludeTombstones(ScanRequest.builder().tableName(table)
                .scanFilter(Map.of("balance", Condition.builder().comparisonOperator(ComparisonOperator.NOT_NULL).build()))
                .build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("legacy 'ScanFilter'");
        assertThatThrownBy(() -> fenced.excludeTombstones(QueryRequest.builder().tableName(table)
                .keyConditions(Map.of("pk", Condition.builder().comparisonOperator(ComparisonOperator.EQ)
                        .attributeValueList(AttributeValue.fromS(live)).build())).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("legacy 'KeyConditions'");
    }

    @Test
    void batchGetItemDropsTombstonesWithOrWithoutAProjection() {
        liveAndDeleted(client, table);
        BatchGetItemResponse whole = fenced.batchGetItem(BatchGetItemRequest.builder().requestItems(Map.of(table,
                KeysAndAttributes.builder().keys(List.of(key(live), key(deleted))).consistentRead(true).build())).build());
        assertThat(whole.responses().get(table)).extracting(item -> item.get("pk").s()).containsExactly(live);
        BatchGetItemResponse projected = fenced.batchGetItem(BatchGetItemRequest.builder().requestItems(Map.of(table,
                KeysAndAttributes.builder().keys(List.of(key(live), key(deleted))).projectionExpression("balance").build())).build());
        assertThat(projected.responses().get(table)).containsExactly(Map.of("balance", AttributeValue.fromN("100")));
    }

    @Test
    void transactGetItemsReportsATombstoneAsNoItemWhereTheServerHasTransactions() {
        Dynamo.assumeTransactions(client, table, "FencedDynamoDbReadsIT.transactGetItems");
        transactGet(client, table);
    }

    @Test
    @RequiresDocker
    void transactGetItemsOnLocalStack() {
        try (GenericContainer<?> localstack = Containers.localstack()) {
            localstack.start();
            DynamoDbClient onLocalStack = Dynamo.client(Containers.localstackEndpoint(localstack));
            transactGet(onLocalStack, Dynamo.newTable(onLocalStack));
        }
    }

    private void transactGet(DynamoDbClient on, String onTable) {
        liveAndDeleted(on, onTable);
        List<ItemResponse> responses = FencedDynamoDb.create(on).transactGetItems(TransactGetItemsRequest.builder()
                .transactItems(
                        TransactGetItem.builder().get(Get.builder().tableName(onTable).key(key(deleted)).build()).build(),
                        TransactGetItem.builder().get(Get.builder().tableName(onTable).key(key(live))
                                .projectionExpression("balance").build()).build())
                .build()).responses();
        assertThat(responses.get(0).hasItem() && !responses.get(0).item().isEmpty()).as("the tombstone").isFalse();
        assertThat(responses.get(1).item()).isEqualTo(Map.of("balance", AttributeValue.fromN("100")));

        // the enhanced client's transact get: the extension maps the tombstone's document to null
        DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(on)
                .extensions(FencingTokenExtension.of(FencedDynamoDb.create(on)).withSdkDefaults()).build();
        DynamoDbTable<Account> accounts = enhanced.table(onTable, TableSchema.fromBean(Account.class));
        List<Document> documents = enhanced.transactGetItems(request -> request
                .addGetItem(accounts, Key.builder().partitionValue(deleted).build())
                .addGetItem(accounts, Key.builder().partitionValue(live).build()));
        assertThat(documents.get(0).getItem(accounts)).as("the tombstone, enhanced").isNull();
        assertThat(documents.get(1).getItem(accounts)).extracting(Account::getPk, Account::getBalance)
                .containsExactly(live, 100L);
    }
}
