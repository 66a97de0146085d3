package dev.fencing.dynamodb.lock;

import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/**
 * Where a provider's lock items live: the table, the string partition key that holds the
 * resource name, and an optional string sort key with one fixed value, so that lock items can
 * share a table with other items (each lock is the item {@code (resource, sort key value)}).
 */
final class LockTable {

    /** The item attributes the provider writes: a key attribute may not have one of these names. */
    static final Set<String> LOCK_ATTRIBUTES = Set.of(DynamoDbLockProvider.OWNER, DynamoDbLockProvider.EXPIRES,
            DynamoDbLockProvider.TOKEN, DynamoDbLockProvider.RELEASED, DynamoDbLockProvider.VERSION,
            DynamoDbLockProvider.LEASE, DynamoDbLockProvider.OWNER_NAME, DynamoDbLockProvider.DATA);

    private static final Duration TABLE_WAIT = Duration.ofMinutes(2);
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z0-9_.-]{3,255}");

    final String name;
    final String partitionKey;
    final @Nullable String sortKey;
    final @Nullable String sortValue;

    LockTable(String name, String partitionKey, @Nullable String sortKey, @Nullable String sortValue) {
        this.name = name;
        this.partitionKey = partitionKey;
        this.sortKey = sortKey;
        this.sortValue = sortValue;
    }

    /** The key of {@code resource}'s lock item. */
    Map<String, AttributeValue> key(String resource) {
        AttributeValue partition = AttributeValue.fromS(resource);
        return sortKey == null ? Map.of(partitionKey, partition)
                : Map.of(partitionKey, partition, sortKey, AttributeValue.fromS(sortValue));
    }

    /**
     * Creates the table (on-demand billing) with this layout's keys unless it exists, waits until
     * it is active, and refuses one whose keys differ.
     */
    void create(DynamoDbClient client) {
        List<KeySchemaElement> keys = new ArrayList<>();
        List<AttributeDefinition> definitions = new ArrayList<>();
        keys.add(KeySchemaElement.builder().attributeName(partitionKey).keyType(KeyType.HASH).build());
        definitions.add(AttributeDefinition.builder().attributeName(partitionKey).attributeType(ScalarAttributeType.S)
                .build());
        if (sortKey != null) {
            keys.add(KeySchemaElement.builder().attributeName(sortKey).keyType(KeyType.RANGE).build());
            definitions.add(AttributeDefinition.builder().attributeName(sortKey).attributeType(ScalarAttributeType.S)
                    .build());
        }
        try {
            client.createTable(request -> request.tableName(name).keySchema(keys).attributeDefinitions(definitions)
                    .billingMode(BillingMode.PAY_PER_REQUEST));
        } catch (ResourceInUseException exists) {
            // already there, or being created by another client: wait for it all the same
        }
        TableDescription found;
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder().client(client)
                .overrideConfiguration(config -> config.waitTimeout(TABLE_WAIT)).build()) {
            found = waiter.waitUntilTableExists(request -> request.tableName(name)).matched().response()
                    .map(DescribeTableResponse::table)
                    .orElseGet(() -> client.describeTable(request -> request.tableName(name)).table());
        }
        requireKeySchema(found);
    }

    /**
     * Refuses a table this layout cannot grant on: its keys must be exactly the string partition
     * key (and the string sort key, if one is set) (amazon-dynamodb-lock-client's tables are keyed
     * {@code key}, for example).
     */
    void requireKeySchema(TableDescription found) {
        boolean keyed = found.keySchema().size() == (sortKey == null ? 1 : 2)
                && found.keySchema().stream().allMatch(key -> key.keyType() == KeyType.HASH
                        ? partitionKey.equals(key.attributeName()) : key.attributeName().equals(sortKey))
                && stringAttribute(found, partitionKey) && (sortKey == null || stringAttribute(found, sortKey));
        if (!keyed) {
            throw new IllegalStateException("table '" + name + "' exists with the key schema " + found.keySchema().stream()
                    .map(key -> key.attributeName() + " (" + key.keyTypeAsString() + ")").toList() + " and attributes "
                    + found.attributeDefinitions().stream().map(definition -> definition.attributeName() + ":"
                            + definition.attributeTypeAsString()).toList() + "; the lock table needs exactly "
                    + describeKeys() + ", or every grant fails. Give the provider a table of its own (Builder.table"
                    + " and createTable with another name), or set its keys (Builder.partitionKey, Builder.sortKey)");
        }
    }

    /** The keys as a sentence: "the string partition key 'resource'" and, if set, the sort key. */
    String describeKeys() {
        return "the string partition key '" + partitionKey + "'"
                + (sortKey == null ? " and no sort key" : " and the string sort key '" + sortKey + "'");
    }

    private static boolean stringAttribute(TableDescription found, String attribute) {
        return found.attributeDefinitions().stream().anyMatch(definition -> attribute.equals(definition.attributeName())
                && definition.attributeType() == ScalarAttributeType.S);
    }

    /** DynamoDB's rule for table names: 3 to 255 of {@code A-Z a-z 0-9 _ . -}. */
    static String requireTableName(String table) {
        Checks.requireName("table", table);
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be a DynamoDB table name, 3 to 255 characters of A-Z, a-z,"
                    + " 0-9, '_', '.' and '-', got '" + (table.length() > 64 ? table.substring(0, 64) + "…" : table)
                    + "' (" + table.length() + " characters)");
        }
        return table;
    }

    /**
     * A key attribute's name: 1 to 255 characters (DynamoDB's limit), no control characters, and
     * none of the attributes the provider writes on the item.
     */
    static String requireKeyName(String what, String attribute) {
        Checks.requireName(what, attribute);
        if (attribute.length() > 255 || LOCK_ATTRIBUTES.contains(attribute)) {
            throw new IllegalArgumentException(what + " must be an attribute name of 1 to 255 characters other than the"
                    + " lock's own attributes " + LOCK_ATTRIBUTES.stream().sorted().toList() + ", got '" + attribute + "'");
        }
        return attribute;
    }
}
