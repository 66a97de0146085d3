package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.RecordingListener;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * {@link FencedDynamoDb} and {@link FencedDynamoDbAsync} report each refusal to their listener (so
 * metrics count it): a holder at 10, a zombie at 7 on instances of their own, on the testkit's
 * DynamoDB.
 */
class WritersReportToTheListenerIT {

    private final DynamoDbClient client = Dynamo.client();
    private final String table = Dynamo.newTable(client);

    private PutItemRequest put(String id) {
        return PutItemRequest.builder().tableName(table).item(Map.of("pk", AttributeValue.fromS(id))).build();
    }

    @Test
    void theSyncWrapperReportsEachRefusalOnce() {
        RecordingListener zombieEvents = new RecordingListener();
        FencedDynamoDb holder = FencedDynamoDb.create(client);
        FencedDynamoDb zombie = FencedDynamoDb.builder(client).listener(zombieEvents).build();
        String id = "acct-" + UUID.randomUUID();
        holder.putItem(FencingToken.of("account", 10), put(id));

        assertThatThrownBy(() -> zombie.putItem(FencingToken.of("account", 7), put(id)))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.deleteItem(FencingToken.of("account", 8), DeleteItemRequest.builder()
                .tableName(table).key(Map.of("pk", AttributeValue.fromS(id))).build()))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> zombie.putItem(FencingToken.of("another-lock", 99), put(id)))
                .isInstanceOf(ForeignTokenException.class);

        assertThat(zombieEvents.staleRejected()).as("the put and the delete").isEqualTo(2);
    }

    @Test
    void theAsyncWrapperReportsEachRefusalOnce() {
        RecordingListener zombieEvents = new RecordingListener();
        FencedDynamoDbAsync holder = FencedDynamoDbAsync.create(Dynamo.asyncClient());
        FencedDynamoDbAsync zombie = FencedDynamoDbAsync.builder(Dynamo.asyncClient()).listener(zombieEvents).build();
        String id = "acct-" + UUID.randomUUID();
        holder.putItem(FencingToken.of("account", 10), put(id)).join();

        assertThatThrownBy(() -> zombie.putItem(FencingToken.of("account", 7), put(id)).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);

        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
    }
}
