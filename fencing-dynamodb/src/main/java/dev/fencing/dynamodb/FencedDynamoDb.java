package dev.fencing.dynamodb;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.Checks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * Your own {@code PutItem}, {@code UpdateItem} and {@code DeleteItem} requests, fenced: the token
 * is written to the item's token attribute ({@code fencing_token} by default) and the request is
 * conditional on {@code attribute_not_exists(#t) OR #t <= :t} ({@code <} under STRICT), AND-ed in
 * parentheses with your own {@code ConditionExpression}.
 *
 * <pre>{@code
 * FencedDynamoDb fenced = FencedDynamoDb.create(dynamoDb);
 * fenced.updateItem(lease.token(), UpdateItemRequest.builder()
 *         .tableName("accounts").key(Map.of("id", AttributeValue.fromS("7")))
 *         .updateExpression("SET balance = :b").expressionAttributeValues(Map.of(":b", AttributeValue.fromN("150")))
 *         .build());
 * }</pre>
 *
 * <table>
 *   <caption>What a failed condition becomes</caption>
 *   <tr><th>the stored item</th><th>thrown</th></tr>
 *   <tr><td>carries a token the policy refuses</td><td>{@link StaleTokenException} with that token</td></tr>
 *   <tr><td>anything else (your own condition failed)</td><td>the SDK's {@code ConditionalCheckFailedException}</td></tr>
 * </table>
 * The stored item comes from {@code ReturnValuesOnConditionCheckFailure = ALL_OLD}; a server that
 * returns none (dynalite) is asked with a consistent read.
 *
 * <p>A fenced delete writes a tombstone — the key, the token and {@code fencing_deleted = true}
 * — so an older holder cannot re-create the item; {@link #getItem} treats a tombstone as absent,
 * and a later fenced put or update replaces it. Your own conditions see a tombstone as an item.
 * Placeholders are chosen so they never collide with yours. Legacy {@code Expected},
 * {@code ConditionalOperator} and {@code AttributeUpdates} requests are refused. Thread-safe.
 */
public final class FencedDynamoDb {

    private final DynamoDbClient client;
    private final RequestFencer fencer;
    private final KeySchemas keySchemas;

    private FencedDynamoDb(DynamoDbClient client, RequestFencer fencer) {
        this.client = client;
        this.fencer = fencer;
        this.keySchemas = new KeySchemas(table -> CompletableFuture.completedFuture(
                client.describeTable(request -> request.tableName(table))));
    }

    /** Fencing with attribute {@code fencing_token}, tombstone marker {@code fencing_deleted}, {@link Policy#MONOTONIC}. */
    public static FencedDynamoDb create(DynamoDbClient client) {
        return builder(client).build();
    }

    /** A builder over {@code client}. */
    public static Builder builder(DynamoDbClient client) {
        return new Builder(Checks.requireNonNull("client", client));
    }

    /**
     * {@code PutItem} with the token.
     *
     * @throws StaleTokenException if the stored item carries a token the policy refuses; nothing was written
     * @throws ConditionalCheckFailedException if your own condition failed
     * @throws IllegalArgumentException for a legacy request, a missing key attribute, or an item carrying the token attribute
     */
    public PutItemResponse putItem(FencingToken token, PutItemRequest request) {
        Checks.requireNonNull("token", token);
        List<String> keys = keys(Checks.requireNonNull("request", request).tableName());
        PutItemRequest fenced = fencer.fence(token, request, keys);
        try {
            return client.putItem(fenced);
        } catch (ConditionalCheckFailedException e) {
            throw stale(e, token, request.tableName(), RequestFencer.keyOf(request.item(), keys));
        }
    }

    /** {@code UpdateItem} with the token; the exceptions of {@link #putItem}. Updating a tombstone brings the item back. */
    public UpdateItemResponse updateItem(FencingToken token, UpdateItemRequest request) {
        Checks.requireNonNull("token", token);
        List<String> keys = keys(Checks.requireNonNull("request", request).tableName());
        UpdateItemRequest fenced = fencer.fence(token, request, keys);
        try {
            return client.updateItem(fenced);
        } catch (ConditionalCheckFailedException e) {
            throw stale(e, token, request.tableName(), request.key());
        }
    }

    /**
     * A fenced delete: replaces the item with a tombstone that keeps its key and the token. Your
     * condition and {@code ReturnValues} apply as for a delete; the exceptions of {@link #putItem}.
     */
    public DeleteItemResponse deleteItem(FencingToken token, DeleteItemRequest request) {
        Checks.requireNonNull("token", token);
        List<String> keys = keys(Checks.requireNonNull("request", request).tableName());
        PutItemRequest tombstone = fencer.tombstone(token, request, keys);
        try {
            PutItemResponse response = client.putItem(tombstone);
            DeleteItemResponse.Builder deleted = DeleteItemResponse.builder().consumedCapacity(response.consumedCapacity());
            if (response.hasAttributes() && !fencer.isTombstone(response.attributes())) {
                deleted.attributes(response.attributes());
            }
            return deleted.build();
        } catch (ConditionalCheckFailedException e) {
            throw stale(e, token, request.tableName(), request.key());
        }
    }

    /** {@code GetItem}, with a tombstone reported as no item. */
    public GetItemResponse getItem(GetItemRequest request) {
        GetItemResponse response = client.getItem(Checks.requireNonNull("request", request));
        if (response.hasItem() && fencer.isTombstone(response.item())) {
            return response.toBuilder().item(null).build();
        }
        return response;
    }

    /** The token stored in {@code item}, if any. */
    public OptionalLong tokenOf(Map<String, AttributeValue> item) {
        return fencer.tokenOf(item);
    }

    /**
     * Your transaction, fenced by a fence item: the transaction first raises {@code fence}'s token
     * attribute to {@code token} (conditionally, as for a put), then applies your writes, all or
     * nothing. Needs a server with {@code TransactWriteItems}.
     *
     * @throws StaleTokenException if the fence item carries a token the policy refuses; nothing was written
     * @throws TransactionCanceledException if one of your own conditions failed
     */
    public TransactWriteItemsResponse transactWriteItems(FencingToken token, FenceItem fence,
            TransactWriteItemsRequest request) {
        Checks.requireNonNull("token", token);
        Checks.requireNonNull("fence", fence);
        Checks.requireNonNull("request", request);
        List<TransactWriteItem> items = new ArrayList<>();
        items.add(TransactWriteItem.builder().update(fencer.fenceUpdate(token, fence)).build());
        items.addAll(request.transactItems());
        try {
            return client.transactWriteItems(request.toBuilder().transactItems(items).build());
        } catch (TransactionCanceledException e) {
            List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
            if (!reasons.isEmpty() && "ConditionalCheckFailed".equals(reasons.get(0).code())) {
                Map<String, AttributeValue> stored = reasons.get(0).hasItem() ? reasons.get(0).item() : read(fence.tableName(),
                        fence.key());
                OptionalLong mark = fencer.tokenOf(stored);
                if (mark.isPresent() && !fencer.policy().accepts(token.value(), mark.getAsLong())) {
                    throw StaleTokenException.of(RequestFencer.describe(fence.tableName(), fence.key()), token,
                            mark.getAsLong(), fencer.policy());
                }
            }
            throw e;
        }
    }

    private RuntimeException stale(ConditionalCheckFailedException e, FencingToken token, String table,
            Map<String, AttributeValue> key) {
        Map<String, AttributeValue> stored = e.hasItem() ? e.item() : read(table, key);
        return fencer.staleOr(e, stored, token, table, key);
    }

    private Map<String, AttributeValue> read(String table, Map<String, AttributeValue> key) {
        GetItemResponse response = client.getItem(request -> request.tableName(table).key(key).consistentRead(true));
        return response.hasItem() ? response.item() : Map.of();
    }

    private List<String> keys(String table) {
        try {
            return keySchemas.of(table).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** Configures a {@link FencedDynamoDb}. */
    public static final class Builder {
        private final DynamoDbClient client;
        private String tokenAttribute = "fencing_token";
        private String tombstoneAttribute = "fencing_deleted";
        private Policy policy = Policy.MONOTONIC;

        private Builder(DynamoDbClient client) {
            this.client = client;
        }

        /** The attribute holding the token; default {@code fencing_token}. Any name: it is always a placeholder. */
        public Builder tokenAttribute(String tokenAttribute) {
            this.tokenAttribute = Attributes.requireName("tokenAttribute", tokenAttribute);
            return this;
        }

        /** The attribute marking a tombstone; default {@code fencing_deleted}. */
        public Builder tombstoneAttribute(String tombstoneAttribute) {
            this.tombstoneAttribute = Attributes.requireName("tombstoneAttribute", tombstoneAttribute);
            return this;
        }

        /** The policy; default {@link Policy#MONOTONIC}. */
        public Builder policy(Policy policy) {
            this.policy = Checks.requireNonNull("policy", policy);
            return this;
        }

        public FencedDynamoDb build() {
            if (tokenAttribute.equals(tombstoneAttribute)) {
                throw new IllegalArgumentException("tokenAttribute and tombstoneAttribute must differ, both are '"
                        + tokenAttribute + "'");
            }
            return new FencedDynamoDb(client, new RequestFencer(tokenAttribute, tombstoneAttribute, policy));
        }
    }
}
