package dev.fencing.dynamodb;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.Checks;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.TableMetadata;
import software.amazon.awssdk.enhanced.dynamodb.model.PageIterable;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryEnhancedRequest;
import software.amazon.awssdk.enhanced.dynamodb.model.ScanEnhancedRequest;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * What an enhanced-client table needs besides {@link FencingTokenExtension}, whose hooks the SDK
 * does not call for deletes and cannot use to filter queries:
 * <ul>
 *   <li>{@link #deleteItem} — a fenced delete that leaves a tombstone (through
 *       {@link FencedDynamoDb}), which either path's later writes are fenced against. The
 *       table's own {@code deleteItem} erases the item and its mark: do not use it;</li>
 *   <li>{@link #query} and {@link #scan} — with a filter that drops tombstones on the server,
 *       before any projection (the extension would otherwise map each to {@code null} in the page,
 *       or, under a projection without the tombstone attribute, let it through as a key-only bean);</li>
 *   <li>{@link #present} — for batch-get results, where a tombstone is a {@code null} element.</li>
 * </ul>
 *
 * <pre>{@code
 * FencedTable<Account> fencedAccounts = FencedTable.of(accounts, fenced);
 * fencedAccounts.deleteItem(lease.token(), Key.builder().partitionValue("account-7").build());
 * fencedAccounts.query(QueryEnhancedRequest.builder().queryConditional(...).build()).items().forEach(...);
 * }</pre>
 *
 * Thread-safe.
 */
public final class FencedTable<T> {

    private final DynamoDbTable<T> table;
    private final FencedDynamoDb fenced;
    private final Expression notDeleted;

    private FencedTable(DynamoDbTable<T> table, FencedDynamoDb fenced) {
        this.table = table;
        this.fenced = fenced;
        String attribute = fenced.fencer().tombstoneAttribute();
        String suffix = Integer.toHexString(attribute.hashCode());
        this.notDeleted = Expression.builder()
                .expression("attribute_not_exists(#fencing_deleted_" + suffix + ") OR #fencing_deleted_" + suffix
                        + " <> :fencing_deleted_" + suffix)
                .expressionNames(Map.of("#fencing_deleted_" + suffix, attribute))
                .expressionValues(Map.of(":fencing_deleted_" + suffix, AttributeValue.fromBool(true)))
                .build();
    }

    /**
     * {@code table} fenced through {@code fenced}.
     *
     * @throws IllegalArgumentException if the table's schema keeps its fencing token under another
     *     name than {@code fenced} does
     */
    public static <T> FencedTable<T> of(DynamoDbTable<T> table, FencedDynamoDb fenced) {
        Checks.requireNonNull("table", table);
        Checks.requireNonNull("fenced", fenced);
        Optional<String> attribute = table.tableSchema().tableMetadata()
                .customMetadataObject(FencingTokenTag.METADATA_KEY, String.class);
        String expected = fenced.fencer().tokenAttribute();
        if (attribute.isPresent() && !attribute.get().equals(expected)) {
            throw new IllegalArgumentException("the schema of table '" + table.tableName() + "' keeps its fencing token in '"
                    + attribute.get() + "', but the FencedDynamoDb keeps it in '" + expected + "'");
        }
        return new FencedTable<>(table, fenced);
    }

    /**
     * A fenced delete of the item with {@code key}: replaces it with a tombstone that keeps the
     * key and the token, so that neither path can write it again with an older token.
     *
     * @return the deleted item, or null if there was none (or only a tombstone)
     * @throws StaleTokenException if the item or its tombstone carries a token the policy refuses; nothing was written
     */
    public @Nullable T deleteItem(FencingToken token, Key key) {
        Checks.requireNonNull("key", key);
        Map<String, AttributeValue> keyMap = key.keyMap(table.tableSchema(), TableMetadata.primaryIndexName());
        DeleteItemResponse response = fenced.deleteItem(Checks.requireNonNull("token", token), DeleteItemRequest.builder()
                .tableName(table.tableName()).key(keyMap).returnValues(ReturnValue.ALL_OLD).build());
        return response.hasAttributes() && !response.attributes().isEmpty()
                ? table.tableSchema().mapToItem(response.attributes())
                : null;
    }

    /** {@link #deleteItem(FencingToken, Key)} with the key of {@code keyItem}. */
    public @Nullable T deleteItem(FencingToken token, T keyItem) {
        return deleteItem(token, table.keyFrom(Checks.requireNonNull("keyItem", keyItem)));
    }

    /** The table's query with tombstones filtered out on the server, AND-ed with your own filter. */
    public PageIterable<T> query(QueryEnhancedRequest request) {
        Checks.requireNonNull("request", request);
        return table.query(request.toBuilder().filterExpression(withNotDeleted(request.filterExpression())).build());
    }

    /** The table's scan with tombstones filtered out on the server, AND-ed with your own filter. */
    public PageIterable<T> scan(ScanEnhancedRequest request) {
        Checks.requireNonNull("request", request);
        return table.scan(request.toBuilder().filterExpression(withNotDeleted(request.filterExpression())).build());
    }

    /** The whole table without tombstones. */
    public PageIterable<T> scan() {
        return scan(ScanEnhancedRequest.builder().build());
    }

    /**
     * The filter that drops tombstones, for requests this class does not send (an index's query:
     * the index must project the tombstone attribute). AND it with yours: {@code Expression.join(yours, notDeleted(), " AND ")}.
     */
    public Expression notDeleted() {
        return notDeleted;
    }

    /**
     * {@code items} without tombstones, which the extension maps to {@code null}: for
     * {@code BatchGetResultPage.resultsForTable} (a batch get has no filter).
     */
    public static <T> List<T> present(List<T> items) {
        return Checks.requireNonNull("items", items).stream().filter(Objects::nonNull).toList();
    }

    private Expression withNotDeleted(Expression filter) {
        return filter == null ? notDeleted : Expression.join(filter, notDeleted, " AND ");
    }
}
