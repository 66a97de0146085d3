package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.RecordingListener;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Each setting of {@link DynamoDbFencedStore.Builder} and {@link FencedDynamoDbAsync.Builder} takes
 * effect against the testkit's DynamoDB, and {@code create} is the builders' defaults. The request
 * timeouts are shown against a silent server in {@link SilentDynamoDbIT}.
 */
class DynamoDbBuildersIT {

    private static final DynamoDbAsyncClient ASYNC = Dynamo.asyncClient();

    private final DynamoDbClient client = Dynamo.client();
    private final String table = Dynamo.newTable(client);

    @AfterAll
    static void close() {
        ASYNC.close();
    }

    private static String key() {
        return "builder-" + UUID.randomUUID();
    }

    private Map<String, AttributeValue> item(String keyAttribute, String key) {
        return client.getItem(r -> r.tableName(table).key(Map.of(keyAttribute, AttributeValue.fromS(key)))
                .consistentRead(true)).item();
    }

    @Test
    void theStoresCreateIsTheDefaults() {
        FencedStore store = DynamoDbFencedStore.create(client, table);
        String key = key();
        store.write(FencingToken.of("orders", 10), key, "a");
        store.write(FencingToken.of("orders", 10), key, "b"); // MONOTONIC: the same token writes again
        Map<String, AttributeValue> item = item("pk", key);
        assertThat(item.get("v").s()).isEqualTo("b");
        assertThat(item.get("fencing_token").n()).isEqualTo("10");
    }

    @Test
    void theStoresKeyAttributeIsTheOneNamed() {
        String byId = "fencing-" + UUID.randomUUID().toString().substring(0, 8);
        DynamoDbFencedStore.createTable(client, byId, "id");
        FencedStore store = DynamoDbFencedStore.builder(client, byId).keyAttribute("id").build();
        store.write(FencingToken.of("orders", 4), "k1", "v1");
        assertThat(client.getItem(r -> r.tableName(byId).key(Map.of("id", AttributeValue.fromS("k1")))
                .consistentRead(true)).item().get("v").s()).isEqualTo("v1");
        assertThat(store.read("k1")).hasValueSatisfying(value -> assertThat(value.value()).isEqualTo("v1"));
    }

    @Test
    void theStoresStrictPolicyRefusesTheSameToken() {
        FencedStore strict = DynamoDbFencedStore.builder(client, table).policy(Policy.STRICT).build();
        String key = key();
        strict.write(FencingToken.of("orders", 10), key, "a");
        assertThatThrownBy(() -> strict.write(FencingToken.of("orders", 10), key, "b"))
                .isInstanceOf(StaleTokenException.class);
        strict.write(FencingToken.of("orders", 11), key, "c");
    }

    @Test
    void theStoresListenerHearsTheRefusedWrite() {
        RecordingListener zombieEvents = new RecordingListener();
        FencedStore holder = DynamoDbFencedStore.create(client, table);
        try (DynamoDbClient zombieClient = Dynamo.newClient()) { // another process
            FencedStore zombie = DynamoDbFencedStore.builder(zombieClient, table).listener(zombieEvents).build();
            String key = key();
            holder.write(FencingToken.of("orders", 10), key, "holder");
            assertThatThrownBy(() -> zombie.write(FencingToken.of("orders", 7), key, "zombie"))
                    .isInstanceOf(StaleTokenException.class);
        }
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
    }

    private PutItemRequest put(String id) {
        return PutItemRequest.builder().tableName(table).item(Map.of("pk", AttributeValue.fromS(id))).build();
    }

    private DeleteItemRequest delete(String id) {
        return DeleteItemRequest.builder().tableName(table).key(Map.of("pk", AttributeValue.fromS(id))).build();
    }

    @Test
    void theAsyncWrappersCreateIsTheDefaults() {
        FencedDynamoDbAsync fenced = FencedDynamoDbAsync.create(ASYNC);
        String id = key();
        fenced.putItem(FencingToken.of("account", 10), put(id)).join();
        fenced.putItem(FencingToken.of("account", 10), put(id)).join(); // MONOTONIC: the same token writes again
        assertThat(item("pk", id).get("fencing_token").n()).isEqualTo("10");
        fenced.deleteItem(FencingToken.of("account", 11), delete(id)).join();
        assertThat(item("pk", id).get("fencing_deleted").bool()).isTrue();
    }

    @Test
    void theAsyncWrappersAttributesAreTheOnesNamed() {
        FencedDynamoDbAsync fenced = FencedDynamoDbAsync.builder(ASYNC).tokenAttribute("lease_token")
                .tombstoneAttribute("gone").build();
        String id = key();
        fenced.putItem(FencingToken.of("account", 10), put(id)).join();
        assertThat(item("pk", id)).containsKey("lease_token").doesNotContainKey("fencing_token");
        fenced.deleteItem(FencingToken.of("account", 11), delete(id)).join();
        assertThat(item("pk", id).get("gone").bool()).isTrue();
        assertThat(fenced.isTombstone(item("pk", id))).isTrue();
        assertThat(FencedDynamoDbAsync.create(ASYNC).isTombstone(item("pk", id))).as("not fencing_deleted").isFalse();
    }

    @Test
    void theAsyncWrappersStrictPolicyRefusesTheSameToken() {
        FencedDynamoDbAsync strict = FencedDynamoDbAsync.builder(ASYNC).policy(Policy.STRICT).build();
        String id = key();
        strict.putItem(FencingToken.of("account", 10), put(id)).join();
        assertThatThrownBy(() -> strict.putItem(FencingToken.of("account", 10), put(id)).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);
    }

    @Test
    void theAsyncWrappersListenerHearsTheRefusedWrite() {
        RecordingListener zombieEvents = new RecordingListener();
        FencedDynamoDbAsync holder = FencedDynamoDbAsync.builder(ASYNC).listener(FencingListener.NONE).build();
        FencedDynamoDbAsync zombie = FencedDynamoDbAsync.builder(ASYNC).listener(zombieEvents).build();
        String id = key();
        holder.putItem(FencingToken.of("account", 10), put(id)).join();
        assertThatThrownBy(() -> zombie.deleteItem(FencingToken.of("account", 7), delete(id)).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
    }
}
