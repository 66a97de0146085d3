package dev.fencing.cli.readme;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.dynamodb.FencedDynamoDb;
import dev.fencing.dynamodb.FencedTable;
import dev.fencing.dynamodb.FencingTokenExtension;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryConditional;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryEnhancedRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/** The Java snippets of docs/dynamodb.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class DynamoDbSnippets {

    private DynamoDbSnippets() {}

    static void lowLevel(DynamoDbClient dynamoDb, LockProvider locks) throws InterruptedException {
        FencedDynamoDb fenced = FencedDynamoDb.create(dynamoDb);              // FencedDynamoDbAsync for the async client
        try (Lease lease = locks.acquire("account-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
            fenced.updateItem(lease.token(), UpdateItemRequest.builder()
                    .tableName("accounts").key(Map.of("pk", AttributeValue.fromS("account-7")))
                    .updateExpression("SET balance = balance - :amount")
                    .conditionExpression("balance >= :amount")                 // yours, kept
                    .expressionAttributeValues(Map.of(":amount", AttributeValue.fromN("30")))
                    .build());
        }
    }

    static void enhanced(DynamoDbClient dynamoDb, Account account, Lease lease) {
        FencedDynamoDb fenced = FencedDynamoDb.create(dynamoDb);
        DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamoDb)
                .extensions(FencingTokenExtension.of(fenced).withSdkDefaults())     // versioning, counters, then fencing
                .build();
        DynamoDbTable<Account> accounts = enhanced.table("accounts", TableSchema.fromBean(Account.class));
        FencedTable<Account> fencedAccounts = FencedTable.of(accounts, fenced);

        account.setFencingToken(lease.token().value());
        accounts.putItem(account);                                                  // or updateItem: fenced
        fencedAccounts.deleteItem(lease.token(), Key.builder().partitionValue("account-7").build());  // a tombstone
        fencedAccounts.query(QueryEnhancedRequest.builder()                                        // no tombstones
                .queryConditional(QueryConditional.keyEqualTo(Key.builder().partitionValue("account-7").build())).build());
    }
}
