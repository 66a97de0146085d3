package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Guarantee 9's documented limit, measured by the adversarial review ("a key's binding never changes once set"): the enhanced client's put,
 * through {@link FencingTokenExtension}, replaces the whole item and so drops
 * {@code fencing_resource}; the next low-level fenced write of ANY lock then binds the key anew.
 * Two processes: one holds lock "orders" (low-level wrapper and enhanced client), the other
 * holds lock "payments" (low-level wrapper on a client of its own). Guarantee 9 in docs/guarantees.md names the
 * enhanced client as not keeping the name; these tests show what that costs.
 */
class EnhancedClientRebindsKeysIT {

    private final DynamoDbClient ordersClient = Dynamo.client();
    private final DynamoDbClient paymentsClient = Dynamo.newClient();
    private final String table = Dynamo.newTable(ordersClient);
    private final FencedDynamoDb orders = FencedDynamoDb.create(ordersClient);
    private final FencedDynamoDb payments = FencedDynamoDb.create(paymentsClient);
    private final DynamoDbTable<Account> accounts = DynamoDbEnhancedClient.builder().dynamoDbClient(ordersClient)
            .extensions(FencingTokenExtension.of(orders).withSdkDefaults()).build()
            .table(table, TableSchema.fromBean(Account.class));

    private PutItemRequest put(String key, long balance) {
        return PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(key), "balance", AttributeValue.fromN(Long.toString(balance))))
                .build();
    }

    private Map<String, AttributeValue> stored(String key) {
        return ordersClient.getItem(r -> r.tableName(table).key(Map.of("pk", AttributeValue.fromS(key)))
                .consistentRead(true)).item();
    }

    /**
     * As documented (docs/guarantees.md, guarantee 9, "What is not checked"): the holder of lock "orders" writes
     * through the enhanced client, whose put replaces the item without its lock name; a low-level
     * write of lock "payments" then binds the key to "payments", and "orders" is refused on it.
     * On a table written through the enhanced client, use one lock per item.
     */
    @Test
    void anEnhancedPutDropsTheLockNameSoAnotherLockCanBindTheKeyAsDocumented() {
        String key = "acct-" + UUID.randomUUID();
        orders.putItem(FencingToken.of("orders", 5), put(key, 100));
        assertThat(orders.resourceOf(stored(key))).isEqualTo("orders");

        accounts.putItem(Account.of(key, 101L, "enhanced", 6L));
        assertThat(orders.resourceOf(stored(key))).as("the lock name after the enhanced put").isNull();

        payments.putItem(FencingToken.of("payments", 7), put(key, 0));
        assertThat(orders.resourceOf(stored(key))).as("the key's binding").isEqualTo("payments");
        assertThat(catchThrowable(() -> orders.putItem(FencingToken.of("orders", 8), put(key, 102))))
                .isInstanceOf(ForeignTokenException.class);
    }

    /**
     * As documented: the enhanced client knows only a token's value, so a holder of another lock
     * whose token value is larger writes a key bound to "orders" through it — and the owner is then
     * refused as stale.
     */
    @Test
    void anEnhancedPutIsNotCheckedAgainstTheKeysLockAsDocumented() {
        String key = "acct-" + UUID.randomUUID();
        orders.putItem(FencingToken.of("orders", 5), put(key, 100));

        DynamoDbTable<Account> paymentsAccounts = DynamoDbEnhancedClient.builder().dynamoDbClient(paymentsClient)
                .extensions(FencingTokenExtension.of(payments).withSdkDefaults()).build()
                .table(table, TableSchema.fromBean(Account.class));
        paymentsAccounts.putItem(Account.of(key, 0L, "payments wrote this", 1_000_000L));

        assertThat(stored(key).get("balance").n()).isEqualTo("0");
        assertThat(catchThrowable(() -> orders.putItem(FencingToken.of("orders", 6), put(key, 101))))
                .isInstanceOf(StaleTokenException.class);
    }
}
