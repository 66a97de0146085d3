package dev.fencing.dynamodb;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.WriteOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;
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
 *   <tr><td>is fenced by another lock ({@code fencing_resource}, the name of the lock whose tokens
 *       wrote it, differs from the token's resource)</td><td>{@link dev.fencing.core.ForeignTokenException}</td></tr>
 *   <tr><td>carries a token the policy refuses</td><td>{@link StaleTokenException} with that token</td></tr>
 *   <tr><td>anything else (your own condition failed)</td><td>the SDK's {@code ConditionalCheckFailedException}</td></tr>
 * </table>
 * The stored item comes from {@code ReturnValuesOnConditionCheckFailure = ALL_OLD}; a server that
 * returns none (dynalite) is asked with a consistent read.
 *
 * <p>A fenced delete writes a tombstone — the key, the token and {@code fencing_deleted = true}
 * — so an older holder cannot re-create the item; a later fenced put or update with an accepted
 * token replaces it (an update removes the marker). Your own conditions see a tombstone as an
 * item. The enhanced client's {@link FencingTokenExtension} uses the same two attributes, so
 * either path honours the other's marks and tombstones.
 *
 * <p><b>Reads.</b> A raw read returns tombstones like any item. Read through {@link #getItem},
 * {@link #batchGetItem} and {@link #transactGetItems}, which report a tombstone as no item, and
 * pass every {@code Query} and {@code Scan} through {@link #excludeTombstones(QueryRequest)} /
 * {@link #excludeTombstones(ScanRequest)} (also for paginators and the async client).
 *
 * <p><b>Batches.</b> {@code BatchWriteItem} cannot carry conditions: never send a raw one to a
 * fenced table. {@link #batchWriteItem} writes the same batch as one fenced transaction.
 *
 * <p><b>Lost replies.</b> Every fenced put, update and delete also writes a random write id to
 * {@code fencing_write} (which your items and update expressions must not write), and is sent
 * without the SDK's blind retries: only a refused connection or a throttle is retried. When the
 * reply is lost (a timeout, a dropped connection, a 5xx answer), a consistent read decides: the
 * item carries this write's id → the call returns normally, with an empty response (no
 * {@code ReturnValues}); otherwise {@link WriteOutcomeUnknownException} — the write was applied at
 * most once and not retried; re-read before deciding. A non-idempotent update such as
 * {@code SET balance = balance - :amount} is therefore never applied twice by a retry.
 * {@code TransactWriteItems} ({@link #batchWriteItem}, {@link #transactWriteItems}) is made
 * idempotent by the SDK's own client request token.
 *
 * <p>Placeholders are chosen so they never collide with yours. Legacy {@code Expected},
 * {@code ConditionalOperator}, {@code AttributeUpdates}, {@code QueryFilter} and
 * {@code ScanFilter} requests are refused. Thread-safe.
 */
public final class FencedDynamoDb {

    /** The attribute holding the token unless configured otherwise, on both paths. */
    public static final String DEFAULT_TOKEN_ATTRIBUTE = "fencing_token";

    /** The attribute marking a tombstone unless configured otherwise, on both paths. */
    public static final String DEFAULT_TOMBSTONE_ATTRIBUTE = "fencing_deleted";

    private final DynamoDbClient client;
    private final RequestFencer fencer;
    private final KeySchemas keySchemas;

    private FencedDynamoDb(DynamoDbClient callers, RequestFencer fencer, Duration requestTimeout) {
        DynamoDbClient client = BoundedDynamoDb.wrap(callers, requestTimeout);
        this.client = client;
        this.fencer = fencer;
        this.keySchemas = new KeySchemas(table -> CompletableFuture.completedFuture(
                client.describeTable(request -> request.tableName(table))));
    }

    /** Fencing with attribute {@code fencing_token}, tombstone marker {@code fencing_deleted}, {@link Policy#MONOTONIC}. */
    public static FencedDynamoDb create(DynamoDbClient client) {
        return builder(client).build();
    }

    RequestFencer fencer() {
        return fencer;
    }

    /** A builder over {@code client}. */
    public static Builder builder(DynamoDbClient client) {
        return new Builder(Checks.requireNonNull("client", client));
    }

    /**
     * {@code PutItem} with the token.
     *
     * @throws StaleTokenException if the stored item carries a token the policy refuses; nothing was written
     * @throws dev.fencing.core.ForeignTokenException if the item is fenced by another lock's tokens; nothing was written
     * @throws ConditionalCheckFailedException if your own condition failed
     * @throws WriteOutcomeUnknownException if the reply was lost and the item does not carry this write's id
     * @throws IllegalArgumentException for a legacy request, a missing key attribute, or an item carrying the token attribute
     */
    public PutItemResponse putItem(FencingToken token, PutItemRequest request) {
        Checks.requireNonNull("token", token);
        List<String> keys = keys(Checks.requireNonNull("request", request).tableName());
        String writeId = AwsReplies.newWriteId();
        PutItemRequest fenced = fencer.fence(token, writeId, request, keys);
        Map<String, AttributeValue> key = RequestFencer.keyOf(request.item(), keys);
        try {
            return client.putItem(fenced);
        } catch (ConditionalCheckFailedException e) {
            throwUnlessLanded(e, token, request.tableName(), key, writeId);
            return PutItemResponse.builder().build();
        } catch (SdkException e) {
            landedOrUnknown(e, writeId, request.tableName(), key);
            return PutItemResponse.builder().build();
        }
    }

    /** {@code UpdateItem} with the token; the exceptions of {@link #putItem}. Updating a tombstone brings the item back. */
    public UpdateItemResponse updateItem(FencingToken token, UpdateItemRequest request) {
        Checks.requireNonNull("token", token);
        List<String> keys = keys(Checks.requireNonNull("request", request).tableName());
        String writeId = AwsReplies.newWriteId();
        UpdateItemRequest fenced = fencer.fence(token, writeId, request, keys);
        try {
            return client.updateItem(fenced);
        } catch (ConditionalCheckFailedException e) {
            throwUnlessLanded(e, token, request.tableName(), request.key(), writeId);
            return UpdateItemResponse.builder().build();
        } catch (SdkException e) {
            landedOrUnknown(e, writeId, request.tableName(), request.key());
            return UpdateItemResponse.builder().build();
        }
    }

    /**
     * The store's path of {@link #updateItem}: the same fenced request, its refusal answered as an
     * outcome that nobody has been told of — {@code written} (also when a lost reply's write is
     * found landed), {@code stale} with the mark, {@code foreign}, or {@code conflict} when the
     * request's own condition failed. A lost reply not found landed still throws
     * {@link WriteOutcomeUnknownException}.
     */
    WriteOutcome update(FencingToken token, UpdateItemRequest request) {
        List<String> keys = keys(request.tableName());
        String writeId = AwsReplies.newWriteId();
        UpdateItemRequest fenced = fencer.fence(token, writeId, request, keys);
        try {
            client.updateItem(fenced);
            return WriteOutcome.written();
        } catch (ConditionalCheckFailedException e) {
            Map<String, AttributeValue> stored = e.hasItem() ? e.item() : readOrUnknown(e, request.tableName(),
                    request.key());
            return LostReplies.carries(stored, writeId) ? WriteOutcome.written() : fencer.outcome(stored, token);
        } catch (SdkException e) {
            landedOrUnknown(e, writeId, request.tableName(), request.key());
            return WriteOutcome.written();
        }
    }

    /**
     * A fenced delete: replaces the item with a tombstone that keeps its key and the token. Your
     * condition and {@code ReturnValues} apply as for a delete; the exceptions of {@link #putItem}.
     */
    public DeleteItemResponse deleteItem(FencingToken token, DeleteItemRequest request) {
        Checks.requireNonNull("token", token);
        List<String> keys = keys(Checks.requireNonNull("request", request).tableName());
        String writeId = AwsReplies.newWriteId();
        PutItemRequest tombstone = fencer.tombstone(token, writeId, request, keys);
        try {
            PutItemResponse response = client.putItem(tombstone);
            DeleteItemResponse.Builder deleted = DeleteItemResponse.builder().consumedCapacity(response.consumedCapacity());
            if (response.hasAttributes() && !fencer.isTombstone(response.attributes())) {
                deleted.attributes(response.attributes());
            }
            return deleted.build();
        } catch (ConditionalCheckFailedException e) {
            throwUnlessLanded(e, token, request.tableName(), request.key(), writeId);
            return DeleteItemResponse.builder().build();
        } catch (SdkException e) {
            landedOrUnknown(e, writeId, request.tableName(), request.key());
            return DeleteItemResponse.builder().build();
        }
    }

    /**
     * {@code GetItem}, with a tombstone reported as no item. A projection gets the tombstone
     * attribute added so that a tombstone is recognised (and removed from the answer).
     */
    public GetItemResponse getItem(GetItemRequest request) {
        TombstoneReads.Marked<GetItemRequest, Boolean> marked = fencer.reads().mark(Checks.requireNonNull("request", request));
        return fencer.reads().present(client.getItem(marked.request()), marked.marked());
    }

    /**
     * {@code BatchGetItem} without tombstones (projections as for {@link #getItem}); the
     * unprocessed keys are returned for you to retry, as by the SDK.
     */
    public BatchGetItemResponse batchGetItem(BatchGetItemRequest request) {
        TombstoneReads.Marked<BatchGetItemRequest, Set<String>> marked =
                fencer.reads().mark(Checks.requireNonNull("request", request));
        return fencer.reads().present(client.batchGetItem(marked.request()), marked.marked());
    }

    /**
     * {@code TransactGetItems} with each tombstone reported as no item (an empty response in its
     * place, as DynamoDB answers for a missing item). Needs a server with transactions.
     */
    public TransactGetItemsResponse transactGetItems(TransactGetItemsRequest request) {
        TombstoneReads.Marked<TransactGetItemsRequest, Set<Integer>> marked =
                fencer.reads().mark(Checks.requireNonNull("request", request));
        return fencer.reads().present(client.transactGetItems(marked.request()), marked.marked());
    }

    /**
     * {@code request} with a filter that drops tombstones on the server, AND-ed with your own
     * {@code FilterExpression}; send it with {@code query} or {@code queryPaginator} of any client.
     * On a global secondary index the tombstone attribute must be projected into the index
     * ({@code ALL}, or {@code INCLUDE} it), or the filter cannot see it.
     *
     * @throws IllegalArgumentException for legacy {@code KeyConditions}, {@code QueryFilter},
     *     {@code AttributesToGet} or {@code ConditionalOperator}, which DynamoDB will not mix with a filter expression
     */
    public QueryRequest excludeTombstones(QueryRequest request) {
        return fencer.reads().exclude(Checks.requireNonNull("request", request));
    }

    /** {@code request} with a filter that drops tombstones, as for {@link #excludeTombstones(QueryRequest)}. */
    public ScanRequest excludeTombstones(ScanRequest request) {
        return fencer.reads().exclude(Checks.requireNonNull("request", request));
    }

    /** Whether {@code item}, as read raw, is a tombstone left by a fenced delete of either path. */
    public boolean isTombstone(Map<String, AttributeValue> item) {
        return fencer.isTombstone(item);
    }

    /** The resource (lock name) whose tokens fence {@code item}, as read raw; null if none is stored. */
    public @Nullable String resourceOf(Map<String, AttributeValue> item) {
        return RequestFencer.resourceOf(item);
    }

    /** The token stored in {@code item}, if any (a decimal mark is rounded up, never through a double). */
    public OptionalLong tokenOf(Map<String, AttributeValue> item) {
        return fencer.tokenOf(item);
    }

    /**
     * A fenced {@code BatchWriteItem}: the same puts and deletes as ONE {@code TransactWriteItems},
     * each put with the token and its condition, each delete as a tombstone — all written, or
     * none. At most 100 writes (the service's limit for a transaction), each item once. One batch is
     * one lock: every item must be bound to {@code token}'s resource or to none yet (a fresh item is
     * bound by this write). Needs a server with transactions (dynalite has none). The response has
     * no unprocessed items.
     *
     * @throws StaleTokenException if any item carries a token the policy refuses; nothing was written
     * @throws dev.fencing.core.ForeignTokenException if any item is bound to another lock; nothing was written
     * @throws IllegalArgumentException for an empty or too large batch, an item written twice, a
     *     missing key attribute, or an item carrying the token attribute
     * @throws TransactionCanceledException if the transaction failed for another reason (a conflict
     *     with another transaction, a throttle); nothing was written
     */
    public BatchWriteItemResponse batchWriteItem(FencingToken token, BatchWriteItemRequest request) {
        Checks.requireNonNull("token", token);
        Checks.requireNonNull("request", request);
        BatchWrites.Plan plan = BatchWrites.plan(fencer, token, request, this::keys);
        try {
            TransactWriteItemsResponse response = client.transactWriteItems(plan.request());
            BatchWriteItemResponse.Builder batch = BatchWriteItemResponse.builder().unprocessedItems(Map.of());
            if (response.hasConsumedCapacity()) {
                batch.consumedCapacity(response.consumedCapacity());
            }
            if (response.hasItemCollectionMetrics()) {
                batch.itemCollectionMetrics(response.itemCollectionMetrics());
            }
            return batch.build();
        } catch (TransactionCanceledException e) {
            throw staleOr(e, token, plan.targets());
        }
    }

    /**
     * Your transaction, fenced by a fence item: the transaction first raises {@code fence}'s token
     * attribute to {@code token} (conditionally, as for a put), then applies your writes, all or
     * nothing. Needs a server with {@code TransactWriteItems}.
     *
     * @throws StaleTokenException if the fence item carries a token the policy refuses; nothing was written
     * @throws dev.fencing.core.ForeignTokenException if the fence item is bound to another lock than the token's; nothing was written
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
        List<BatchWrites.Target> targets = new ArrayList<>(Collections.nCopies(items.size(), null));
        targets.set(0, new BatchWrites.Target(fence.tableName(), fence.key()));
        try {
            return client.transactWriteItems(request.toBuilder().transactItems(items).build());
        } catch (TransactionCanceledException e) {
            throw staleOr(e, token, targets);
        }
    }

    private RuntimeException staleOr(TransactionCanceledException e, FencingToken token, List<BatchWrites.Target> targets) {
        return BatchWrites.staleOr(e, token, targets, fencer, this::read);
    }

    /**
     * Throws the refusal for a failed condition — unless the stored item carries {@code writeId}: then
     * the request was a re-send (by an HTTP client below the SDK) of this very write, which landed.
     */
    private void throwUnlessLanded(ConditionalCheckFailedException e, FencingToken token, String table,
            Map<String, AttributeValue> key, String writeId) {
        Map<String, AttributeValue> stored = e.hasItem() ? e.item() : readOrUnknown(e, table, key);
        if (!LostReplies.carries(stored, writeId)) {
            throw fencer.staleOr(e, stored, token, table, key);
        }
    }

    /**
     * Returns if {@code failure} leaves no doubt (rethrown as is) or a consistent read shows the item
     * carries {@code writeId} (the write landed); throws {@link WriteOutcomeUnknownException} otherwise.
     */
    private void landedOrUnknown(SdkException failure, String writeId, String table, Map<String, AttributeValue> key) {
        if (!AwsReplies.unclear(failure)) {
            throw failure;
        }
        Map<String, AttributeValue> item;
        try {
            item = read(table, key);
        } catch (SdkException alsoFailed) {
            failure.addSuppressed(alsoFailed);
            throw WriteOutcomeUnknownException.of(RequestFencer.describe(table, key), failure);
        }
        if (!LostReplies.carries(item, writeId)) {
            throw WriteOutcomeUnknownException.of(RequestFencer.describe(table, key), failure);
        }
    }

    /**
     * The item after {@code refusal}, a failed condition that may answer a re-send of this very write
     * (which landed): if it cannot be read, whether the write landed is unknown.
     */
    private Map<String, AttributeValue> readOrUnknown(SdkException refusal, String table,
            Map<String, AttributeValue> key) {
        try {
            return read(table, key);
        } catch (RuntimeException unread) {
            WriteOutcomeUnknownException unknown = WriteOutcomeUnknownException.of(RequestFencer.describe(table, key), unread);
            unknown.addSuppressed(refusal);
            throw unknown;
        }
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

    /** Configures a {@link FencedDynamoDb}: the same settings as {@link FencedDynamoDbAsync.Builder}. */
    public static final class Builder extends WrapperBuilder<Builder> {
        private final DynamoDbClient client;

        private Builder(DynamoDbClient client) {
            this.client = client;
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * The wrapper; {@link FencingTokenExtension#of(FencedDynamoDb)} gives the enhanced client the same settings.
         *
         * @throws IllegalArgumentException if the token and tombstone attributes are one, or one of
         *     them is an attribute every fenced write keeps ({@code fencing_write}, {@code fencing_resource})
         */
        public FencedDynamoDb build() {
            return new FencedDynamoDb(client, fencer(), requestTimeout());
        }
    }
}
