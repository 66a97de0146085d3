package dev.fencing.dynamodb;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
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
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * {@link FencedDynamoDb} for the {@link DynamoDbAsyncClient}: the same requests and conditions;
 * the futures complete exceptionally with {@link dev.fencing.core.StaleTokenException} or the
 * SDK's {@code ConditionalCheckFailedException}, or {@link WriteOutcomeUnknownException} after a lost
 * reply as described in {@link FencedDynamoDb} (wrapped in a {@link CompletionException}, as
 * the SDK's own futures do). Bad input fails the future with {@link IllegalArgumentException}.
 * Reads that drop tombstones as in {@link FencedDynamoDb}; for a fenced batch write use
 * {@link FencedDynamoDb#batchWriteItem} (never a raw {@code BatchWriteItem}). Thread-safe.
 */
public final class FencedDynamoDbAsync {

    private final DynamoDbAsyncClient client;
    private final RequestFencer fencer;
    private final KeySchemas keySchemas;

    private FencedDynamoDbAsync(DynamoDbAsyncClient callers, RequestFencer fencer, Duration requestTimeout) {
        DynamoDbAsyncClient client = BoundedDynamoDb.wrap(callers, requestTimeout);
        this.client = client;
        this.fencer = fencer;
        this.keySchemas = new KeySchemas(table -> client.describeTable(request -> request.tableName(table)));
    }

    /** Fencing with attribute {@code fencing_token}, tombstone marker {@code fencing_deleted}, {@link Policy#MONOTONIC}. */
    public static FencedDynamoDbAsync create(DynamoDbAsyncClient client) {
        return builder(client).build();
    }

    /**
     * A builder over {@code client}: the settings of {@link FencedDynamoDb#builder}, attributes
     * {@code fencing_token} and {@code fencing_deleted}, {@link Policy#MONOTONIC}, requests bounded
     * by 10 s and no listener unless set.
     */
    public static Builder builder(DynamoDbAsyncClient client) {
        return new Builder(Checks.requireNonNull("client", client));
    }

    /** See {@link FencedDynamoDb#putItem}. */
    public CompletableFuture<PutItemResponse> putItem(FencingToken token, PutItemRequest request) {
        return withKeys(token, request == null ? null : request.tableName(), keys -> {
            String writeId = AwsReplies.newWriteId();
            PutItemRequest fenced = fencer.fence(token, writeId, request, keys);
            return translate(client.putItem(fenced), token, request.tableName(), RequestFencer.keyOf(request.item(), keys),
                    writeId, () -> PutItemResponse.builder().build());
        });
    }

    /** See {@link FencedDynamoDb#updateItem}. */
    public CompletableFuture<UpdateItemResponse> updateItem(FencingToken token, UpdateItemRequest request) {
        return withKeys(token, request == null ? null : request.tableName(), keys -> {
            String writeId = AwsReplies.newWriteId();
            UpdateItemRequest fenced = fencer.fence(token, writeId, request, keys);
            return translate(client.updateItem(fenced), token, request.tableName(), request.key(), writeId,
                    () -> UpdateItemResponse.builder().build());
        });
    }

    /** See {@link FencedDynamoDb#deleteItem}: a tombstone that keeps the key and the token. */
    public CompletableFuture<DeleteItemResponse> deleteItem(FencingToken token, DeleteItemRequest request) {
        return withKeys(token, request == null ? null : request.tableName(), keys -> {
            String writeId = AwsReplies.newWriteId();
            PutItemRequest tombstone = fencer.tombstone(token, writeId, request, keys);
            return translate(client.putItem(tombstone), token, request.tableName(), request.key(), writeId,
                    () -> PutItemResponse.builder().build())
                    .thenApply(response -> {
                        DeleteItemResponse.Builder deleted = DeleteItemResponse.builder()
                                .consumedCapacity(response.consumedCapacity());
                        if (response.hasAttributes() && !fencer.isTombstone(response.attributes())) {
                            deleted.attributes(response.attributes());
                        }
                        return deleted.build();
                    });
        });
    }

    /** See {@link FencedDynamoDb#getItem}: a tombstone is reported as no item. */
    public CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
        TombstoneReads.Marked<GetItemRequest, Boolean> marked = fencer.reads().mark(Checks.requireNonNull("request", request));
        return client.getItem(marked.request()).thenApply(response -> fencer.reads().present(response, marked.marked()));
    }

    /** See {@link FencedDynamoDb#batchGetItem}: no tombstones. */
    public CompletableFuture<BatchGetItemResponse> batchGetItem(BatchGetItemRequest request) {
        TombstoneReads.Marked<BatchGetItemRequest, Set<String>> marked =
                fencer.reads().mark(Checks.requireNonNull("request", request));
        return client.batchGetItem(marked.request()).thenApply(response -> fencer.reads().present(response, marked.marked()));
    }

    /** See {@link FencedDynamoDb#transactGetItems}: each tombstone reported as no item. */
    public CompletableFuture<TransactGetItemsResponse> transactGetItems(TransactGetItemsRequest request) {
        TombstoneReads.Marked<TransactGetItemsRequest, Set<Integer>> marked =
                fencer.reads().mark(Checks.requireNonNull("request", request));
        return client.transactGetItems(marked.request())
                .thenApply(response -> fencer.reads().present(response, marked.marked()));
    }

    /** See {@link FencedDynamoDb#excludeTombstones(QueryRequest)}. */
    public QueryRequest excludeTombstones(QueryRequest request) {
        return fencer.reads().exclude(Checks.requireNonNull("request", request));
    }

    /** See {@link FencedDynamoDb#excludeTombstones(ScanRequest)}. */
    public ScanRequest excludeTombstones(ScanRequest request) {
        return fencer.reads().exclude(Checks.requireNonNull("request", request));
    }

    /** Whether {@code item}, as read raw, is a tombstone. */
    public boolean isTombstone(Map<String, AttributeValue> item) {
        return fencer.isTombstone(item);
    }

    private <T> CompletableFuture<T> withKeys(FencingToken token, @Nullable String table,
            Function<List<String>, CompletableFuture<T>> call) {
        if (token == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("token must not be null"));
        }
        return keySchemas.of(table).thenCompose(call);
    }

    private <T> CompletableFuture<T> translate(CompletableFuture<T> call, FencingToken token, String table,
            Map<String, AttributeValue> key, String writeId, Supplier<T> landed) {
        return call.handle((response, failure) -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            if (cause instanceof ConditionalCheckFailedException e) {
                CompletableFuture<Map<String, AttributeValue>> stored = e.hasItem()
                        ? CompletableFuture.completedFuture(e.item())
                        : client.getItem(r -> r.tableName(table).key(key).consistentRead(true))
                                .handle((r, unread) -> {
                                    if (unread != null) { // the refusal may answer a re-send of this very write
                                        WriteOutcomeUnknownException unknown = WriteOutcomeUnknownException.of(
                                                RequestFencer.describe(table, key), AwsReplies.unwrap(unread));
                                        unknown.addSuppressed(e);
                                        throw new CompletionException(unknown);
                                    }
                                    return r.hasItem() ? r.item() : Map.<String, AttributeValue>of();
                                });
                return stored.<T>thenApply(item -> {
                    if (LostReplies.carries(item, writeId)) { // a re-send of this very write, which landed
                        return landed.get();
                    }
                    throw new CompletionException(fencer.staleOr(e, item, token, table, key));
                });
            }
            if (cause != null && AwsReplies.unclear(cause)) { // a cause implies a failure; unclear(null) is false
                return client.getItem(r -> r.tableName(table).key(key).consistentRead(true)).handle((read, readFailure) -> {
                    if (readFailure == null && LostReplies.carries(read.hasItem() ? read.item() : Map.of(), writeId)) {
                        return landed.get();
                    }
                    if (readFailure != null) {
                        cause.addSuppressed(readFailure);
                    }
                    throw new CompletionException(WriteOutcomeUnknownException.of(RequestFencer.describe(table, key), cause));
                });
            }
            return failure == null ? CompletableFuture.completedFuture(response) : CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(Function.identity());
    }

    /** Configures a {@link FencedDynamoDbAsync}: the same settings as {@link FencedDynamoDb.Builder}. */
    public static final class Builder extends WrapperBuilder<Builder> {
        private final DynamoDbAsyncClient client;

        private Builder(DynamoDbAsyncClient client) {
            this.client = client;
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * The wrapper.
         *
         * @throws IllegalArgumentException if the token and tombstone attributes are one, or one of
         *     them is an attribute every fenced write keeps ({@code fencing_write}, {@code fencing_resource})
         */
        public FencedDynamoDbAsync build() {
            return new FencedDynamoDbAsync(client, fencer(), requestTimeout());
        }
    }
}
