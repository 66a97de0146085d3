package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import java.util.Map;
import java.util.UUID;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Attack on guarantee 9 ("a key's binding never changes once set"): the enhanced client's put,
 * through {@link FencingTokenExtension}, replaces the whole item and so drops
 * {@code fencing_resource}; the next low-level fenced write of ANY lock then binds the key anew.
 * Two processes: one holds lock "orders" (low-level wrapper and enhanced client), the other
 * holds lock "payments" (low-level wrapper on a client of its own). README guarantee 9 names the
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

    @Test
    void anEnhancedPutByTheBoundLocksOwnHolderLetsAnotherLockRebindTheKeyThroughTheLowLevelWrapper() {
        String key = "acct-" + UUID.randomUUID();
        orders.putItem(FencingToken.of("orders", 5), put(key, 100));
        assertThat(orders.resourceOf(stored(key))).isEqualTo("orders");

        // the holder of "orders" itself writes through the enhanced client, with its own next token
        accounts.putItem(Account.of(key, 101L, "enhanced", 6L));
        System.out.println("after the enhanced put by 'orders': " + stored(key));

        // another process, holding lock "payments" whose token happens to be larger
        Throwable refusal = catchThrowable(() -> payments.putItem(FencingToken.of("payments", 7), put(key, 0)));
        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(refusal).as("a low-level write with a token of lock 'payments' on a key lock 'orders' bound")
                .isInstanceOf(ForeignTokenException.class);
        softly.assertThat(orders.resourceOf(stored(key))).as("the key's binding").isIn("orders", null);
        softly.assertThat(stored(key).get("balance").n()).as("the balance").isEqualTo("101");
        softly.assertThat(catchThrowable(() -> orders.putItem(FencingToken.of("orders", 8), put(key, 102))))
                .as("the next write of lock 'orders' itself").isNull();
        softly.assertAll();
    }

    @Test
    void anEnhancedPutOfAnotherLocksHolderIsAcceptedOnABoundKeyAndLocksTheOwnerOut() {
        String key = "acct-" + UUID.randomUUID();
        orders.putItem(FencingToken.of("orders", 5), put(key, 100));

        // a holder of lock "payments" (token 1_000_000) uses the enhanced client on the same table
        DynamoDbTable<Account> paymentsAccounts = DynamoDbEnhancedClient.builder().dynamoDbClient(paymentsClient)
                .extensions(FencingTokenExtension.of(payments).withSdkDefaults()).build()
                .table(table, TableSchema.fromBean(Account.class));
        Account theirs = Account.of(key, 0L, "payments wrote this", 1_000_000L);
        Throwable refusal = catchThrowable(() -> paymentsAccounts.putItem(theirs));
        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(refusal)
                .as("an enhanced put carrying the token value of lock 'payments' on a key bound to 'orders'")
                .isNotNull();
        softly.assertThat(stored(key).get("balance").n()).as("the balance").isEqualTo("100");
        softly.assertThat(catchThrowable(() -> orders.putItem(FencingToken.of("orders", 6), put(key, 101))))
                .as("the next write of lock 'orders', the key's owner").isNull();
        softly.assertAll();
    }
}
