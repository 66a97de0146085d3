package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.AttributeValueUpdate;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ExpectedAttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/** The low-level wrappers against the testkit's DynamoDB-compatible server (dynalite: no ALL_OLD, so the consistent-read fallback runs). */
class FencedDynamoDbIT {

    private final DynamoDbClient client = Dynamo.client();
    private final String table = Dynamo.newTable(client);
    private final FencedDynamoDb fenced = FencedDynamoDb.create(client);

    private static String id() {
        return "account-" + UUID.randomUUID();
    }

    private static FencingToken token(String id, long value) {
        return FencingToken.of(id, value);
    }

    private Map<String, AttributeValue> key(String id) {
        return Map.of("pk", AttributeValue.fromS(id));
    }

    private PutItemRequest put(String id, long balance) {
        return PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(id), "balance", AttributeValue.fromN(Long.toString(balance)))).build();
    }

    private UpdateItemRequest setBalance(String id, long balance) {
        return UpdateItemRequest.builder().tableName(table).key(key(id))
                .updateExpression("SET balance = :b")
                .expressionAttributeValues(Map.of(":b", AttributeValue.fromN(Long.toString(balance)))).build();
    }

    private long balance(String id) {
        return Long.parseLong(client.getItem(GetItemRequest.builder().tableName(table).key(key(id)).consistentRead(true)
                .build()).item().get("balance").n());
    }

    /** Article §13: the paused holder's write is refused; the balance is the newer holder's. */
    @Test
    void theZombieWriterIsRefusedAfterTheNewHolderWrote() {
        String id = id();
        fenced.putItem(token(id, 1), put(id, 100));
        long seenByZombie = balance(id); // client 1 (token 2) reads, then pauses
        fenced.updateItem(token(id, 3), setBalance(id, balance(id) + 50)); // client 2
        assertThatThrownBy(() -> fenced.updateItem(token(id, 2), setBalance(id, seenByZombie - 30)))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(3))
                .hasMessageContaining(table + "{pk=" + id + "}");
        assertThatThrownBy(() -> fenced.putItem(token(id, 2), put(id, 70))).isInstanceOf(StaleTokenException.class);
        assertThat(balance(id)).isEqualTo(150);
        assertThat(fenced.tokenOf(client.getItem(r -> r.tableName(table).key(key(id))).item())).hasValue(3);
    }

    /** Guarantee 9 on the wrapper: an item is fenced by one lock; put, update and delete with another lock's token are refused. */
    @Test
    void aTokenOfAnotherLockIsRefusedByPutUpdateAndDeleteAndNothingChanges() {
        String id = id();
        FencedDynamoDb other = FencedDynamoDb.create(Dynamo.newClient());
        fenced.putItem(FencingToken.of("accounts", 5), put(id, 100));
        FencingToken foreign = FencingToken.of("Accounts", 1_000);

        for (Runnable write : List.<Runnable>of(() -> other.putItem(foreign, put(id, 1)),
                () -> other.updateItem(foreign, setBalance(id, 2)),
                () -> other.deleteItem(foreign, DeleteItemRequest.builder().tableName(table).key(key(id)).build()))) {
            assertThatThrownBy(write::run).isInstanceOfSatisfying(ForeignTokenException.class, e -> {
                assertThat(e.boundResource()).isEqualTo("accounts");
                assertThat(e.key()).contains(id);
            });
        }
        assertThat(balance(id)).isEqualTo(100);
        Map<String, AttributeValue> item = client.getItem(r -> r.tableName(table).key(key(id)).consistentRead(true)).item();
        assertThat(fenced.tokenOf(item)).hasValue(5);
        assertThat(fenced.resourceOf(item)).isEqualTo("accounts");
        fenced.updateItem(FencingToken.of("accounts", 6), setBalance(id, 150));
        assertThat(balance(id)).isEqualTo(150);
    }

    @Test
    void theCallersConditionNamesAndValuesSurviveEvenWhenTheyUseOurPlaceholderNames() {
        String id = id();
        fenced.putItem(token(id, 1), put(id, 100));
        // the caller's own placeholders happen to be the ones the wrapper would pick first
        UpdateItemRequest debit = UpdateItemRequest.builder().tableName(table).key(key(id))
                .updateExpression("SET #fencing_token = #fencing_token - :fencing_token")
                .conditionExpression("#fencing_token >= :fencing_token")
                .expressionAttributeNames(Map.of("#fencing_token", "balance"))
                .expressionAttributeValues(Map.of(":fencing_token", AttributeValue.fromN("30"))).build();
        fenced.updateItem(token(id, 2), debit);
        assertThat(balance(id)).isEqualTo(70);

        UpdateItemRequest overdraw = debit.toBuilder()
                .expressionAttributeValues(Map.of(":fencing_token", AttributeValue.fromN("500"))).build();
        assertThatThrownBy(() -> fenced.updateItem(token(id, 3), overdraw))
                .as("the caller's own condition failed, the token was fine")
                .isInstanceOf(ConditionalCheckFailedException.class)
                .isNotInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> fenced.updateItem(token(id, 1), overdraw))
                .as("both failed: the stale token is what the caller must hear")
                .isInstanceOf(StaleTokenException.class);
        assertThat(balance(id)).isEqualTo(70);
    }

    @Test
    void aFencedDeleteLeavesATombstoneThatKeepsTheMarkAndHidesTheItem() {
        String id = id();
        fenced.putItem(token(id, 5), put(id, 100));
        fenced.deleteItem(token(id, 6), DeleteItemRequest.builder().tableName(table).key(key(id)).build());
        assertThat(fenced.getItem(GetItemRequest.builder().tableName(table).key(key(id)).build()).hasItem()).isFalse();
        assertThatThrownBy(() -> fenced.putItem(token(id, 5), put(id, 70))).as("zombie re-creates")
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> fenced.updateItem(token(id, 5), setBalance(id, 70))).isInstanceOf(StaleTokenException.class);
        fenced.updateItem(token(id, 7), setBalance(id, 1));
        assertThat(fenced.getItem(GetItemRequest.builder().tableName(table).key(key(id)).build()).item())
                .containsEntry("balance", AttributeValue.fromN("1"))
                .doesNotContainKey("fencing_deleted");
    }

    @Test
    void strictRefusesAnEqualToken() {
        FencedDynamoDb strict = FencedDynamoDb.builder(client).policy(Policy.STRICT).build();
        String id = id();
        strict.putItem(token(id, 4), put(id, 1));
        assertThatThrownBy(() -> strict.putItem(token(id, 4), put(id, 2))).isInstanceOf(StaleTokenException.class);
        fenced.putItem(token(id, 4), put(id, 3)); // MONOTONIC accepts it
        assertThat(balance(id)).isEqualTo(3);
    }

    @Test
    void badInputIsRefusedBeforeAnyRequest() {
        String id = id();
        assertThatThrownBy(() -> fenced.putItem(token(id, 1), PutItemRequest.builder().tableName(table)
                .item(Map.of("balance", AttributeValue.fromN("1"))).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lacks key attribute(s) [pk]");
        assertThatThrownBy(() -> fenced.putItem(token(id, 1), PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(id), "fencing_token", AttributeValue.fromN("99"))).build()))
                .hasMessageContaining("must not carry 'fencing_token'");
        assertThatThrownBy(() -> fenced.updateItem(token(id, 1), UpdateItemRequest.builder().tableName(table).key(key(id))
                .updateExpression("SET #t = :t").expressionAttributeNames(Map.of("#t", "fencing_token"))
                .expressionAttributeValues(Map.of(":t", AttributeValue.fromN("99"))).build()))
                .hasMessageContaining("must not write 'fencing_token'");
        assertThatThrownBy(() -> fenced.putItem(token(id, 1), put(id, 1).toBuilder()
                .expected(Map.of("balance", ExpectedAttributeValue.builder().exists(false).build())).build()))
                .hasMessageContaining("legacy 'Expected' parameter");
        assertThatThrownBy(() -> fenced.updateItem(token(id, 1), UpdateItemRequest.builder().tableName(table).key(key(id))
                .attributeUpdates(Map.of("balance", AttributeValueUpdate.builder().value(AttributeValue.fromN("1")).build()))
                .build()))
                .hasMessageContaining("legacy 'AttributeUpdates' parameter");
        assertThatThrownBy(() -> FencedDynamoDb.builder(client).tokenAttribute("pk").build()
                .putItem(token(id, 1), put(id, 1)))
                .hasMessageContaining("must not be key attributes");
        assertThatThrownBy(() -> FencedDynamoDb.builder(client).tokenAttribute(""))
                .hasMessageContaining("tokenAttribute must be 1 to 255 bytes");
        assertThatThrownBy(() -> FencingToken.of(id, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(client.getItem(r -> r.tableName(table).key(key(id))).hasItem()).as("nothing written").isFalse();
    }

    @Test
    void theAsyncWrapperFencesTheSameWay() {
        try (DynamoDbAsyncClient async = Dynamo.asyncClient()) {
            FencedDynamoDbAsync fencedAsync = FencedDynamoDbAsync.create(async);
            String id = id();
            fencedAsync.putItem(token(id, 1), put(id, 100)).join();
            fencedAsync.updateItem(token(id, 3), setBalance(id, 150)).join();
            assertThatThrownBy(() -> fencedAsync.updateItem(token(id, 2), setBalance(id, 70)).join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(StaleTokenException.class);
            assertThatThrownBy(() -> fencedAsync.updateItem(token(id, 4), setBalance(id, 1).toBuilder()
                    .conditionExpression("attribute_not_exists(pk)").build()).join())
                    .hasCauseInstanceOf(ConditionalCheckFailedException.class);
            fencedAsync.deleteItem(token(id, 5), DeleteItemRequest.builder().tableName(table).key(key(id)).build()).join();
            assertThat(fencedAsync.getItem(GetItemRequest.builder().tableName(table).key(key(id)).build()).join().hasItem())
                    .isFalse();
            assertThatThrownBy(() -> fencedAsync.putItem(token(id, 4), put(id, 9)).join())
                    .hasCauseInstanceOf(StaleTokenException.class);
            assertThatThrownBy(() -> fencedAsync.putItem(token(id, 6), PutItemRequest.builder().tableName(table)
                    .item(Map.of("balance", AttributeValue.fromN("1"))).build()).join())
                    .hasCauseInstanceOf(IllegalArgumentException.class);
        }
    }
}
