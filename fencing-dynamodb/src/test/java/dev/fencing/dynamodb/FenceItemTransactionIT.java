package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.containers.Containers;
import dev.fencing.testkit.containers.RequiresDocker;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * A fence item in {@code TransactWriteItems}. dynalite (the default test server) has no
 * transactions: there the test is skipped with a printed reason; it runs against a server given by
 * {@code FENCING_DYNAMODB_ENDPOINT} that has them, and against LocalStack when Docker is present.
 */
class FenceItemTransactionIT {

    @Test
    void onTheTestkitServerWhenItHasTransactions() {
        DynamoDbClient client = Dynamo.client();
        String table = Dynamo.newTable(client);
        try {
            client.transactWriteItems(TransactWriteItemsRequest.builder().transactItems(TransactWriteItem.builder()
                    .put(Put.builder().tableName(table).item(Map.of("pk", AttributeValue.fromS("probe"))).build())
                    .build()).build());
        } catch (DynamoDbException e) {
            String reason = "the DynamoDB test server has no TransactWriteItems (" + e.awsErrorDetails().errorCode()
                    + "); set FENCING_DYNAMODB_ENDPOINT to a server with transactions, or run with Docker for LocalStack";
            System.out.println("SKIPPED FenceItemTransactionIT.onTheTestkitServerWhenItHasTransactions: " + reason);
            Assumptions.abort(reason);
        }
        fenceItemGuardsTheTransaction(client, table);
    }

    @Test
    @RequiresDocker
    void onLocalStack() {
        try (GenericContainer<?> localstack = Containers.localstack()) {
            localstack.start();
            DynamoDbClient client = Dynamo.client(Containers.localstackEndpoint(localstack));
            fenceItemGuardsTheTransaction(client, Dynamo.newTable(client));
        }
    }

    private static void fenceItemGuardsTheTransaction(DynamoDbClient client, String table) {
        FencedDynamoDb fenced = FencedDynamoDb.create(client);
        String resource = "transfer-" + UUID.randomUUID();
        FenceItem fence = FenceItem.of(table, "pk", "fence:" + resource);
        fenced.transactWriteItems(FencingToken.of(resource, 5), fence, transfer(table, resource, 100));
        assertThatThrownBy(() -> fenced.transactWriteItems(FencingToken.of(resource, 4), fence, transfer(table, resource, 70)))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(5));
        assertThat(client.getItem(r -> r.tableName(table).key(Map.of("pk", AttributeValue.fromS("from:" + resource))))
                .item().get("balance").n()).isEqualTo("100");
    }

    private static TransactWriteItemsRequest transfer(String table, String resource, long amount) {
        return TransactWriteItemsRequest.builder().transactItems(
                TransactWriteItem.builder().put(Put.builder().tableName(table).item(Map.of(
                        "pk", AttributeValue.fromS("from:" + resource),
                        "balance", AttributeValue.fromN(Long.toString(amount)))).build()).build(),
                TransactWriteItem.builder().put(Put.builder().tableName(table).item(Map.of(
                        "pk", AttributeValue.fromS("to:" + resource),
                        "balance", AttributeValue.fromN(Long.toString(amount)))).build()).build())
                .build();
    }
}
