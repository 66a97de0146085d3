package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.model.GetItemEnhancedRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The low-level path ({@link FencedDynamoDb}) and the enhanced path ({@link FencingTokenExtension}
 * with {@link FencedTable} for deletes) fence each other, on the testkit's DynamoDB server. Each
 * path has its own client instance, as two processes would.
 */
class CrossPathDynamoIT {

    enum Path { LOW_LEVEL, ENHANCED }

    enum Op { PUT, UPDATE, DELETE }

    private final DynamoDbClient lowLevelClient = Dynamo.newClient();
    private final DynamoDbClient enhancedClient = Dynamo.newClient();
    private final String table = Dynamo.newTable(lowLevelClient);
    private final FencedDynamoDb fenced = FencedDynamoDb.create(lowLevelClient);
    private final FencedDynamoDb fencedForEnhanced = FencedDynamoDb.create(enhancedClient);
    private final DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(enhancedClient)
            .extensions(FencingTokenExtension.of(fencedForEnhanced).withSdkDefaults()).build();
    private final DynamoDbTable<Account> accounts = enhanced.table(table, TableSchema.fromBean(Account.class));
    private final FencedTable<Account> fencedAccounts = FencedTable.of(accounts, fencedForEnhanced);

    static Stream<Arguments> holderThenZombie() {
        List<Arguments> cases = new ArrayList<>();
        for (Path holderPath : Path.values()) {
            for (Op holderOp : Op.values()) {
                for (Path zombiePath : Path.values()) {
                    for (Op zombieOp : Op.values()) {
                        cases.add(Arguments.of(holderPath, holderOp, zombiePath, zombieOp));
                    }
                }
            }
        }
        return cases.stream();
    }

    /**
     * The newer holder (token 6) writes or deletes through one path; the zombie (token 5) then
     * writes the very same values, or deletes, through either path: refused, nothing changes, and
     * both paths read the same thing.
     */
    @ParameterizedTest(name = "holder {1} via {0}, zombie {3} via {2}")
    @MethodSource("holderThenZombie")
    void aZombieIsRefusedWhicheverPathTheHolderAndTheZombieUse(Path holderPath, Op holderOp, Path zombiePath, Op zombieOp) {
        String id = "account-" + UUID.randomUUID();
        apply(Path.LOW_LEVEL, Op.PUT, id, 1, 100L, "opened");
        apply(holderPath, holderOp, id, 6, 150L, "");
        Map<String, AttributeValue> afterHolder = raw(id);

        assertThatThrownBy(() -> apply(zombiePath, zombieOp, id, 5, 150L, ""))
                .isInstanceOf(zombiePath == Path.ENHANCED && zombieOp != Op.DELETE
                        ? ConditionalCheckFailedException.class
                        : StaleTokenException.class);

        assertThat(raw(id)).as("the zombie changed nothing").isEqualTo(afterHolder);
        assertThat(raw(id).get("fencing_token")).isEqualTo(AttributeValue.fromN("6"));
        assertBothPathsRead(id, holderOp == Op.DELETE ? null : 150L);
    }

    static Stream<Arguments> deleteThenWrite() {
        List<Arguments> cases = new ArrayList<>();
        for (Path deletePath : Path.values()) {
            for (Path writePath : Path.values()) {
                for (Op write : List.of(Op.PUT, Op.UPDATE)) {
                    cases.add(Arguments.of(deletePath, writePath, write));
                }
            }
        }
        return cases.stream();
    }

    /** A newer holder's write on a tombstone left by either path brings the item back, for both paths. */
    @ParameterizedTest(name = "delete via {0}, then {2} via {1}")
    @MethodSource("deleteThenWrite")
    void anAcceptedWriteOnATombstoneClearsIt(Path deletePath, Path writePath, Op write) {
        String id = "account-" + UUID.randomUUID();
        apply(Path.LOW_LEVEL, Op.PUT, id, 1, 100L, "opened");
        apply(deletePath, Op.DELETE, id, 6, null, null);
        assertBothPathsRead(id, null);

        apply(writePath, write, id, 7, 1L, "back");

        assertThat(raw(id)).doesNotContainKey("fencing_deleted").containsEntry("fencing_token", AttributeValue.fromN("7"));
        assertBothPathsRead(id, 1L);
    }

    /** Tokens above 2^53 differ by one: a double would make them equal, and MONOTONIC would then let the zombie in. */
    @Test
    void tokensAbove2To53AreComparedExactlyAcrossPaths() {
        long newer = (1L << 53) + 1;
        String id = "account-" + UUID.randomUUID();
        apply(Path.ENHANCED, Op.PUT, id, newer, 1L, "x");
        assertThatThrownBy(() -> apply(Path.LOW_LEVEL, Op.UPDATE, id, newer - 1, 2L, "x"))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(newer));
        apply(Path.LOW_LEVEL, Op.DELETE, id, Long.MAX_VALUE, null, null);
        assertThatThrownBy(() -> apply(Path.ENHANCED, Op.PUT, id, Long.MAX_VALUE - 1, 3L, "x"))
                .isInstanceOf(ConditionalCheckFailedException.class);
        assertThat(raw(id).get("fencing_token")).isEqualTo(AttributeValue.fromN(Long.toString(Long.MAX_VALUE)));
    }

    /** A second delete with the same token is the same holder repeating itself; with an older one it is a zombie. */
    @Test
    void aSecondDeleteIsFencedLikeAnyWrite() {
        String id = "account-" + UUID.randomUUID();
        apply(Path.ENHANCED, Op.PUT, id, 3, 1L, "x");
        apply(Path.ENHANCED, Op.DELETE, id, 4, null, null);
        apply(Path.LOW_LEVEL, Op.DELETE, id, 4, null, null);
        assertThatThrownBy(() -> apply(Path.ENHANCED, Op.DELETE, id, 3, null, null)).isInstanceOf(StaleTokenException.class);
        assertThat(raw(id)).containsEntry("fencing_token", AttributeValue.fromN("4"))
                .containsEntry("fencing_deleted", AttributeValue.fromBool(true));
        assertBothPathsRead(id, null);
    }

    private void apply(Path path, Op op, String id, long token, Long balance, String note) {
        FencingToken fencingToken = FencingToken.of(id, token);
        if (path == Path.ENHANCED) {
            switch (op) {
                case PUT -> accounts.putItem(Account.of(id, balance, note, token));
                case UPDATE -> accounts.updateItem(Account.of(id, balance, note, token));
                case DELETE -> fencedAccounts.deleteItem(fencingToken, Key.builder().partitionValue(id).build());
            }
            return;
        }
        switch (op) {
            case PUT -> {
                Map<String, AttributeValue> item = new HashMap<>(key(id));
                item.put("balance", AttributeValue.fromN(Long.toString(balance)));
                item.put("note", AttributeValue.fromS(note));
                fenced.putItem(fencingToken, PutItemRequest.builder().tableName(table).item(item).build());
            }
            case UPDATE -> fenced.updateItem(fencingToken, UpdateItemRequest.builder().tableName(table).key(key(id))
                    .updateExpression("SET balance = :b, note = :n")
                    .expressionAttributeValues(Map.of(":b", AttributeValue.fromN(Long.toString(balance)),
                            ":n", AttributeValue.fromS(note)))
                    .build());
            case DELETE -> fenced.deleteItem(fencingToken, DeleteItemRequest.builder().tableName(table).key(key(id)).build());
        }
    }

    private void assertBothPathsRead(String id, Long balance) {
        Account bean = accounts.getItem(GetItemEnhancedRequest.builder().key(Key.builder().partitionValue(id).build())
                .consistentRead(true).build());
        var lowLevel = fenced.getItem(GetItemRequest.builder().tableName(table).key(key(id)).consistentRead(true).build());
        if (balance == null) {
            assertThat(bean).as("enhanced read of a deleted item").isNull();
            assertThat(lowLevel.hasItem()).as("low-level read of a deleted item").isFalse();
        } else {
            assertThat(bean).as("enhanced read").isNotNull();
            assertThat(bean.getBalance()).isEqualTo(balance);
            assertThat(lowLevel.item()).containsEntry("balance", AttributeValue.fromN(Long.toString(balance)));
        }
    }

    private Map<String, AttributeValue> raw(String id) {
        return lowLevelClient.getItem(GetItemRequest.builder().tableName(table).key(key(id)).consistentRead(true).build())
                .item();
    }

    private static Map<String, AttributeValue> key(String id) {
        return Map.of("pk", AttributeValue.fromS(id));
    }
}
