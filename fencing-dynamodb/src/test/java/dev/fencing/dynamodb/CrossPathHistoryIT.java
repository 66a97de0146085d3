package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.spi.StorageBasedFencedStore;
import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRun;
import dev.fencing.testkit.history.Violation;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The testkit's randomized history check with the two DynamoDB paths writing one table: two
 * low-level {@link DynamoDbFencedStore} processes and one that writes only through the enhanced
 * client ({@link EnhancedPathAccessor}). With both paths on one token attribute the history is
 * consistent; with the enhanced bean's token in another attribute — the README's old snippet —
 * the checker finds the stale writes and resurrections that the cross-path review found
 * by hand.
 */
class CrossPathHistoryIT {

    private final DynamoDbClient lowLevel = Dynamo.newClient();
    private final DynamoDbClient forEnhanced = Dynamo.newClient();
    private final DynamoDbClient third = Dynamo.newClient();
    private final String table = Dynamo.newTable(lowLevel);

    private History run(FencedStore enhancedPath, long seed) {
        List<FencedStore> stores = List.of(
                DynamoDbFencedStore.builder(lowLevel, table).build(),
                enhancedPath,
                DynamoDbFencedStore.builder(third, table).build());
        return HistoryRun.builder().keyPrefix("cross-" + UUID.randomUUID().toString().substring(0, 8)).seed(seed)
                .operationsPerWriter(80).timeLimit(Duration.ofSeconds(8)).build().run(stores);
    }

    @Test
    void bothPathsOnOneTokenAttributeKeepTheHistoryConsistent() {
        FencedDynamoDb fenced = FencedDynamoDb.create(forEnhanced);
        DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(forEnhanced)
                .extensions(FencingTokenExtension.of(fenced).withSdkDefaults()).build();
        EnhancedPathAccessor<HistoryItem> accessor = new EnhancedPathAccessor<>(forEnhanced, fenced,
                enhanced.table(table, TableSchema.fromBean(HistoryItem.class)), HistoryItem.class, (key, value, version,
                        token) -> {
                    HistoryItem item = new HistoryItem();
                    item.setPk(key);
                    item.setV(value);
                    item.setVersion(version);
                    item.setFencingToken(token);
                    return item;
                });
        HistoryChecker.check(run(StorageBasedFencedStore.of(accessor), 19)).assertPassed();
    }

    /** Found by the checker: the paths keep the token in two attributes and ignore each other's marks. */
    @Test
    void theCheckerFindsTheResurrectionsWhenThePathsKeepTheTokenInTwoAttributes() {
        FencedDynamoDb misnamed = FencedDynamoDb.builder(forEnhanced).tokenAttribute("fencingToken").build();
        DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(forEnhanced)
                .extensions(FencingTokenExtension.of(misnamed).withSdkDefaults()).build();
        EnhancedPathAccessor<MisnamedHistoryItem> accessor = new EnhancedPathAccessor<>(forEnhanced, misnamed,
                enhanced.table(table, TableSchema.fromBean(MisnamedHistoryItem.class)), MisnamedHistoryItem.class,
                (key, value, version, token) -> {
                    MisnamedHistoryItem item = new MisnamedHistoryItem();
                    item.setPk(key);
                    item.setV(value);
                    item.setVersion(version);
                    item.setFencingToken(token);
                    return item;
                });
        CheckResult result = HistoryChecker.check(run(StorageBasedFencedStore.of(accessor), 19));
        System.out.println("with the token in two attributes: " + result.summary());
        assertThat(result.violations()).as("violations the checker found").extracting(Violation::rule)
                .containsAnyOf(Violation.Rule.values());
    }
}
