package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.fencing.core.FencingToken;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.model.BatchGetResultPage;
import software.amazon.awssdk.enhanced.dynamodb.model.PutItemEnhancedRequest;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryConditional;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryEnhancedRequest;
import software.amazon.awssdk.enhanced.dynamodb.model.ReadBatch;
import software.amazon.awssdk.enhanced.dynamodb.model.ScanEnhancedRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * Enhanced reads never hand a tombstone to the caller as a bean — except a plain query or scan whose
 * projection leaves out the tombstone marker; {@link FencedTable} drops them from queries, scans (projected
 * or not) and batch gets.
 */
class EnhancedDynamoReadsIT {

    private final DynamoDbClient client = Dynamo.client();
    private final String table = Dynamo.newTable(client);
    private final FencedDynamoDb fenced = FencedDynamoDb.create(client);
    private final DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(client)
            .extensions(FencingTokenExtension.of(fenced).withSdkDefaults()).build();
    private final DynamoDbTable<Account> accounts = enhanced.table(table, TableSchema.fromBean(Account.class));
    private final FencedTable<Account> fencedAccounts = FencedTable.of(accounts, fenced);
    private final String live = "live-" + UUID.randomUUID();
    private final String deletedLowLevel = "deleted-ll-" + UUID.randomUUID();
    private final String deletedEnhanced = "deleted-en-" + UUID.randomUUID();

    private void oneLiveTwoDeleted() {
        for (String id : List.of(live, deletedLowLevel, deletedEnhanced)) {
            accounts.putItem(Account.of(id, 100L, "n", 1L));
        }
        fenced.deleteItem(FencingToken.of(deletedLowLevel, 2), DeleteItemRequest.builder().tableName(table)
                .key(Map.of("pk", AttributeValue.fromS(deletedLowLevel))).build());
        Account old = fencedAccounts.deleteItem(FencingToken.of(deletedEnhanced, 2), Key.builder().partitionValue(deletedEnhanced).build());
        assertThat(old.getBalance()).as("the fenced delete returns the deleted bean").isEqualTo(100);
    }

    @Test
    void getItemOfATombstoneIsNull() {
        oneLiveTwoDeleted();
        assertThat(accounts.getItem(Key.builder().partitionValue(deletedLowLevel).build())).isNull();
        assertThat(accounts.getItem(Key.builder().partitionValue(deletedEnhanced).build())).isNull();
        assertThat(accounts.getItem(Key.builder().partitionValue(live).build()).getBalance()).isEqualTo(100);
    }

    @Test
    void theOldItemOfAWriteOrDeleteIsNeverATombstoneBean() {
        oneLiveTwoDeleted();
        Account replaced = accounts.putItemWithResponse(PutItemEnhancedRequest.builder(Account.class)
                .item(Account.of(deletedLowLevel, 5L, "back", 3L)).returnValues(ReturnValue.ALL_OLD).build()).attributes();
        assertThat(replaced).as("the tombstone it replaced").isNull();
        assertThat(fencedAccounts.deleteItem(FencingToken.of(deletedEnhanced, 3), Key.builder().partitionValue(deletedEnhanced)
                .build())).as("a second delete").isNull();
    }

    @Test
    void fencedQueryAndScanDropTombstonesOnTheServer() {
        oneLiveTwoDeleted();
        for (String id : List.of(live, deletedLowLevel, deletedEnhanced)) {
            List<Account> found = fencedAccounts.query(QueryEnhancedRequest.builder()
                    .queryConditional(QueryConditional.keyEqualTo(Key.builder().partitionValue(id).build())).build())
                    .items().stream().toList();
            assertThat(found).extracting(Account::getPk).containsExactlyElementsOf(id.equals(live) ? List.of(live) : List.of());
        }
        assertThat(fencedAccounts.scan().items().stream().toList()).extracting(Account::getPk).containsExactly(live);
        Expression poor = Expression.builder().expression("balance < :max")
                .expressionValues(Map.of(":max", AttributeValue.fromN("100"))).build();
        assertThat(fencedAccounts.scan(ScanEnhancedRequest.builder().filterExpression(poor).build()).items().stream().toList())
                .as("the caller's own filter is kept").isEmpty();
    }

    @Test
    void aPlainScanMapsTombstonesToNullNeverToBeans() {
        oneLiveTwoDeleted();
        List<Account> page = accounts.scan().items().stream().toList();
        assertThat(page).hasSize(3).filteredOn(Objects::isNull).as("the two tombstones").hasSize(2);
        assertThat(page.stream().filter(Objects::nonNull)).extracting(Account::getPk).containsExactly(live);
        assertThat(FencedTable.present(page)).extracting(Account::getPk).containsExactly(live);
    }

    /**
     * The extension sees an item only after the server projected it, so a plain projected
     * query or scan that leaves out {@code fencing_deleted} hands back a tombstone as a key-only bean.
     * The fenced table's filter runs on the server before the projection and drops it; projecting
     * {@code fencing_deleted} too lets the extension map it to null again.
     */
    @Test
    void aProjectedPlainScanReturnsTombstonesAsKeyOnlyBeansAndTheFencedTableDropsThem() {
        oneLiveTwoDeleted();
        ScanEnhancedRequest projected = ScanEnhancedRequest.builder().attributesToProject("pk", "balance").build();
        List<Account> plain = accounts.scan(projected).items().stream().toList();
        assertThat(plain).as("no null: the extension cannot see the marker the projection left out").hasSize(3)
                .doesNotContainNull();
        assertThat(plain).filteredOn(account -> account.getBalance() == null).as("the two tombstones, as key-only beans")
                .extracting(Account::getPk).containsExactlyInAnyOrder(deletedLowLevel, deletedEnhanced);

        assertThat(fencedAccounts.scan(projected).items().stream().toList()).extracting(Account::getPk, Account::getBalance)
                .containsExactly(tuple(live, 100L));
        for (String id : List.of(live, deletedLowLevel, deletedEnhanced)) {
            QueryEnhancedRequest query = QueryEnhancedRequest.builder().attributesToProject("pk", "balance")
                    .queryConditional(QueryConditional.keyEqualTo(Key.builder().partitionValue(id).build())).build();
            assertThat(accounts.query(query).items().stream().toList()).as("plain projected query of " + id).hasSize(1);
            assertThat(fencedAccounts.query(query).items().stream().toList()).extracting(Account::getPk)
                    .as("fenced projected query of " + id).containsExactlyElementsOf(id.equals(live) ? List.of(live) : List.of());
        }

        List<Account> withMarker = accounts.scan(ScanEnhancedRequest.builder()
                .attributesToProject("pk", "balance", "fencing_deleted").build()).items().stream().toList();
        assertThat(withMarker).as("projecting the marker too: tombstones are null again").hasSize(3)
                .filteredOn(Objects::isNull).hasSize(2);
    }

    @Test
    void batchGetResultsWithoutTombstones() {
        oneLiveTwoDeleted();
        ReadBatch.Builder<Account> batch = ReadBatch.builder(Account.class).mappedTableResource(accounts);
        for (String id : List.of(live, deletedLowLevel, deletedEnhanced)) {
            batch.addGetItem(Key.builder().partitionValue(id).build());
        }
        List<Account> results = enhanced.batchGetItem(request -> request.readBatches(batch.build())).stream()
                .flatMap((BatchGetResultPage page) -> page.resultsForTable(accounts).stream()).toList();
        assertThat(results).hasSize(3).filteredOn(Objects::nonNull).extracting(Account::getPk).containsExactly(live);
        assertThat(FencedTable.present(results)).extracting(Account::getPk).containsExactly(live);
    }
}
