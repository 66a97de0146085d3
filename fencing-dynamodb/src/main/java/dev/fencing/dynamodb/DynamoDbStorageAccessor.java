package dev.fencing.dynamodb;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The {@link StorageAccessor} of {@link DynamoDbFencedStore}: one conditional {@code UpdateItem}
 * per write, through {@link FencedDynamoDb}; a read-modify-write adds {@code version = :read} (or
 * {@code attribute_not_exists(key)}) to the condition. Thread-safe.
 */
final class DynamoDbStorageAccessor implements StorageAccessor<Long> {

    static final String VALUE = "v";
    static final String VERSION = "version";

    private final DynamoDbClient client;
    private final FencedDynamoDb fenced;
    private final String table;
    private final String keyAttribute;
    private final String server;

    /** @param server the server as messages name it ({@code "DynamoDB at http://…"}) */
    DynamoDbStorageAccessor(DynamoDbClient client, FencedDynamoDb fenced, String table, String keyAttribute,
            String server) {
        this.client = client;
        this.fenced = fenced;
        this.table = table;
        this.keyAttribute = keyAttribute;
        this.server = server + ", table '" + table + "'";
    }

    @Override
    public boolean unanswered(RuntimeException failure) {
        return AwsReplies.unanswered(failure);
    }

    @Override
    public String server() {
        return server;
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        GetItemResponse response = client.getItem(request -> request.tableName(table).key(key(key)).consistentRead(true));
        if (!response.hasItem() || response.item().isEmpty()) {
            return Optional.empty();
        }
        Map<String, AttributeValue> item = response.item();
        String value = item.containsKey(VALUE) ? item.get(VALUE).s() : null;
        long token = fenced.tokenOf(item).orElse(0);
        long version = item.containsKey(VERSION) ? Long.parseLong(item.get(VERSION).n()) : 0;
        return Optional.of(new Snapshot<>(value, token, fenced.resourceOf(item), version));
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        return run(key, request(key, value, null, null), token);
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, @Nullable String value, FencingToken token,
            Policy policy) {
        if (expected == null) {
            return run(key, request(key, value, "attribute_not_exists(#key)", null), token);
        }
        // an item without a version (a tombstone FencedDynamoDb.deleteItem left on the same table) loads as version 0
        return expected.version() == 0
                ? run(key, request(key, value, "attribute_not_exists(#version)", null), token)
                : run(key, request(key, value, "#version = :expected", expected.version()), token);
    }

    private UpdateItemRequest request(String key, @Nullable String value, @Nullable String condition,
            @Nullable Long expectedVersion) {
        Map<String, String> names = new HashMap<>(Map.of("#version", VERSION));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":zero", AttributeValue.fromN("0"),
                ":one", AttributeValue.fromN("1")));
        String update;
        if (value == null) {
            update = "REMOVE #value SET #version = if_not_exists(#version, :zero) + :one";
        } else {
            update = "SET #value = :value, #version = if_not_exists(#version, :zero) + :one";
            values.put(":value", AttributeValue.fromS(value));
        }
        names.put("#value", VALUE);
        if (condition != null && condition.contains("#key")) {
            names.put("#key", keyAttribute);
        }
        if (expectedVersion != null) {
            values.put(":expected", AttributeValue.fromN(Long.toString(expectedVersion)));
        }
        return UpdateItemRequest.builder().tableName(table).key(key(key)).updateExpression(update)
                .conditionExpression(condition).expressionAttributeNames(names).expressionAttributeValues(values).build();
    }

    private WriteOutcome run(String key, UpdateItemRequest request, FencingToken token) {
        try {
            return fenced.update(token, request); // refusals unreported: the store reports each once
        } catch (WriteOutcomeUnknownException e) {
            throw WriteOutcomeUnknownException.of(key, Objects.requireNonNull(e.getCause(),
                    "WriteOutcomeUnknownException.of always sets the cause")); // named by the store's key, not the table's
        }
    }

    private Map<String, AttributeValue> key(String key) {
        return Map.of(keyAttribute, AttributeValue.fromS(key));
    }
}
