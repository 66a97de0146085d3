package dev.fencing.dynamodb;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.model.PutItemEnhancedRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The FencedStore SPI built from the enhanced-client path only — {@link FencingTokenExtension}
 * puts of a bean carrying the token, {@link FencedTable#deleteItem} for deletes — on
 * {@link DynamoDbFencedStore}'s item layout, so a history run can mix it with the low-level path
 * on one table. A put replaces the whole item; its version is a fresh random number, so a
 * low-level writer that loaded the item before can never mistake it for the version it saw.
 *
 * @param <T> the bean ({@link HistoryItem}, or {@link MisnamedHistoryItem} to reproduce the paths
 *     keeping the token in two attributes)
 */
final class EnhancedPathAccessor<T> implements StorageAccessor<Long> {

    /** Builds a bean from key, value, version and token. */
    interface Beans<T> {
        T of(String key, String value, long version, long token);
    }

    private static final SecureRandom VERSIONS = new SecureRandom();

    private final DynamoDbClient client;
    private final FencedDynamoDb fenced;
    private final DynamoDbTable<T> table;
    private final FencedTable<T> fencedTable;
    private final Class<T> type;
    private final Beans<T> beans;

    EnhancedPathAccessor(DynamoDbClient client, FencedDynamoDb fenced, DynamoDbTable<T> table, Class<T> type,
            Beans<T> beans) {
        this.client = client;
        this.fenced = fenced;
        this.table = table;
        this.fencedTable = FencedTable.of(table, fenced);
        this.type = type;
        this.beans = beans;
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        Map<String, AttributeValue> item = client.getItem(r -> r.tableName(table.tableName())
                .key(Map.of("pk", AttributeValue.fromS(key))).consistentRead(true)).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        String value = fenced.isTombstone(item) || !item.containsKey("v") ? null : item.get("v").s();
        long version = item.containsKey("version") ? Long.parseLong(item.get("version").n()) : 0;
        return Optional.of(new Snapshot<>(value, fenced.tokenOf(item).orElse(0), fenced.resourceOf(item), version));
    }

    @Override
    public WriteOutcome write(String key, String value, FencingToken token, Policy policy) {
        if (value == null) {
            try {
                fencedTable.deleteItem(token, Key.builder().partitionValue(key).build());
                return WriteOutcome.written();
            } catch (StaleTokenException e) {
                return WriteOutcome.stale(e.highWaterMark());
            }
        }
        try {
            table.putItem(bean(key, value, token));
            return WriteOutcome.written();
        } catch (ConditionalCheckFailedException e) {
            return WriteOutcome.stale(-1); // the extension's token condition is the only one: the core reads the mark
        }
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        Expression condition;
        if (expected == null) {
            condition = Expression.builder().expression("attribute_not_exists(#pk)").putExpressionName("#pk", "pk")
                    .build();
        } else if (expected.version() == 0) {
            condition = Expression.builder().expression("attribute_not_exists(#version)")
                    .putExpressionName("#version", "version").build();
        } else {
            condition = Expression.builder().expression("#version = :expected").putExpressionName("#version", "version")
                    .putExpressionValue(":expected", AttributeValue.fromN(Long.toString(expected.version()))).build();
        }
        try {
            table.putItem(PutItemEnhancedRequest.builder(type).item(bean(key, value, token)).conditionExpression(condition)
                    .build());
            return WriteOutcome.written();
        } catch (ConditionalCheckFailedException e) {
            return WriteOutcome.conflict(); // the version moved, or the token is stale: the core reloads and decides
        }
    }

    private T bean(String key, String value, FencingToken token) {
        return beans.of(key, value, VERSIONS.nextLong(1, Long.MAX_VALUE), token.value());
    }
}
