package dev.fencing.dynamodb;

import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The item a fenced transaction advances first: its token attribute is the high-water mark of
 * the resource it stands for, whatever items the transaction writes.
 *
 * @param tableName the table holding fence items
 * @param key the full primary key of the fence item
 */
public record FenceItem(String tableName, Map<String, AttributeValue> key) {

    /** Validates and copies. */
    public FenceItem {
        if (tableName == null || tableName.isBlank()) {
            throw new IllegalArgumentException("a fence item needs a table name");
        }
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("a fence item needs its full primary key");
        }
        key = Map.copyOf(key);
    }

    /** The fence item with string partition key {@code keyAttribute = resource} in {@code tableName}. */
    public static FenceItem of(String tableName, String keyAttribute, String resource) {
        return new FenceItem(tableName, Map.of(keyAttribute, AttributeValue.fromS(resource)));
    }
}
