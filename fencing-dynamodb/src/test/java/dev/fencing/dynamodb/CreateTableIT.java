package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * {@link DynamoDbFencedStore#createTable} returns only once the table is {@code ACTIVE}, on a
 * server where a new table stays {@code CREATING} for a while as on DynamoDB itself (dynalite with
 * a 1.5 s table delay; or the server {@code FENCING_DYNAMODB_ENDPOINT} names). How long it waits
 * is not asserted.
 */
class CreateTableIT {

    private static DynamoDbTestServer server;

    @BeforeAll
    static void start() {
        server = Optional.ofNullable(System.getenv("FENCING_DYNAMODB_ENDPOINT")).filter(v -> !v.isBlank())
                .map(DynamoDbTestServer::external).orElseGet(() -> DynamoDbTestServer.launch(Duration.ofMillis(1500)));
    }

    @AfterAll
    static void stop() {
        if (server != null && server.isManaged()) {
            server.stop();
        }
    }

    private static String newName() {
        return "create-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static TableStatus status(DynamoDbClient client, String table) {
        return client.describeTable(r -> r.tableName(table)).table().tableStatus();
    }

    @Test
    void aNewTableIsActiveWhenCreateTableReturnsAndTakesFencedWrites() {
        try (DynamoDbClient client = Dynamo.client(server.endpoint())) {
            String table = newName();
            DynamoDbFencedStore.createTable(client, table, "pk");
            assertThat(status(client, table)).isEqualTo(TableStatus.ACTIVE);

            FencedStore store = DynamoDbFencedStore.create(client, table);
            store.write(FencingToken.of("k", 7), "k", "v");
            assertThat(store.read("k")).map(StoredValue::token).contains(7L);
        }
    }

    /** Another client (another worker starting at the same moment) created it: still CREATING, so wait too. */
    @Test
    void aTableAnotherClientIsCreatingIsWaitedFor() {
        String table = newName();
        try (DynamoDbClient other = Dynamo.client(server.endpoint());
                DynamoDbClient client = Dynamo.client(server.endpoint())) {
            other.createTable(r -> r.tableName(table)
                    .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("pk")
                            .attributeType(ScalarAttributeType.S).build())
                    .billingMode(BillingMode.PAY_PER_REQUEST));

            DynamoDbFencedStore.createTable(client, table, "pk");
            assertThat(status(client, table)).isEqualTo(TableStatus.ACTIVE);
        }
    }
}
