package dev.fencing.dynamodb;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;

/** The key attribute names of each table, asked once with {@code DescribeTable} and cached. */
final class KeySchemas {

    private final Map<String, CompletableFuture<List<String>>> byTable = new ConcurrentHashMap<>();
    private final Function<String, CompletableFuture<DescribeTableResponse>> describe;

    KeySchemas(Function<String, CompletableFuture<DescribeTableResponse>> describe) {
        this.describe = describe;
    }

    CompletableFuture<List<String>> of(@Nullable String table) {
        if (table == null || table.isBlank()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("the request needs a tableName"));
        }
        CompletableFuture<List<String>> keys = byTable.computeIfAbsent(table, name -> describe.apply(name)
                .thenApply(response -> response.table().keySchema().stream().map(KeySchemaElement::attributeName).toList()));
        keys.whenComplete((ok, failed) -> {
            if (failed != null) {
                byTable.remove(table, keys); // ask again next time
            }
        });
        return keys;
    }
}
