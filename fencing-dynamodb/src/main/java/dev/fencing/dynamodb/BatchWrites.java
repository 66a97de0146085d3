package dev.fencing.dynamodb;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * A {@code BatchWriteItem} request turned into one fenced {@code TransactWriteItems}: each put
 * carries the token and its condition, each delete becomes a tombstone put, all or nothing.
 * {@code BatchWriteItem} itself cannot carry a condition, so it cannot be fenced. Pure logic.
 *
 * <p>One transaction, never several: a second chunk refused after a first one committed would
 * leave half a batch written behind a {@code StaleTokenException} that says nothing was. A
 * transaction holds {@value #MAX_ITEMS} actions, four times what one {@code BatchWriteItem}
 * request may carry; larger batches are the caller's to split, as with {@code BatchWriteItem}.
 */
final class BatchWrites {

    /** The service's limit of actions in one {@code TransactWriteItems}. */
    static final int MAX_ITEMS = 100;

    private BatchWrites() {}

    /** The item each action of the transaction writes, in order, for telling which one was refused. */
    record Target(String table, Map<String, AttributeValue> key) {}

    record Plan(TransactWriteItemsRequest request, List<Target> targets) {}

    static Plan plan(RequestFencer fencer, FencingToken token, BatchWriteItemRequest request,
            Function<String, List<String>> keysOf) {
        if (!request.hasRequestItems() || request.requestItems().values().stream().allMatch(List::isEmpty)) {
            throw new IllegalArgumentException("the batch has no write requests");
        }
        int count = request.requestItems().values().stream().mapToInt(List::size).sum();
        if (count > MAX_ITEMS) {
            throw new IllegalArgumentException("a fenced batch is one TransactWriteItems, which holds at most " + MAX_ITEMS
                    + " writes; this batch has " + count + ": split it");
        }
        List<TransactWriteItem> items = new ArrayList<>();
        List<Target> targets = new ArrayList<>();
        Set<Target> seen = new HashSet<>();
        request.requestItems().forEach((table, writes) -> {
            List<String> keys = keysOf.apply(table);
            for (WriteRequest write : writes) {
                PutItemRequest put = fenced(fencer, token, table, write, keys);
                Target target = new Target(table, RequestFencer.keyOf(put.item(), keys));
                if (!seen.add(target)) {
                    throw new IllegalArgumentException("the batch writes " + RequestFencer.describe(table, target.key())
                            + " twice; a transaction (like BatchWriteItem) takes each item once");
                }
                targets.add(target);
                items.add(TransactWriteItem.builder().put(Put.builder()
                        .tableName(put.tableName())
                        .item(put.item())
                        .conditionExpression(put.conditionExpression())
                        .expressionAttributeNames(put.expressionAttributeNames())
                        .expressionAttributeValues(put.expressionAttributeValues())
                        .returnValuesOnConditionCheckFailure(put.returnValuesOnConditionCheckFailureAsString())
                        .build()).build());
            }
        });
        TransactWriteItemsRequest.Builder transaction = TransactWriteItemsRequest.builder().transactItems(items);
        if (request.returnConsumedCapacity() != null) {
            transaction.returnConsumedCapacity(request.returnConsumedCapacityAsString());
        }
        if (request.returnItemCollectionMetrics() != null) {
            transaction.returnItemCollectionMetrics(request.returnItemCollectionMetricsAsString());
        }
        return new Plan(transaction.build(), targets);
    }

    /**
     * {@link StaleTokenException} or {@link dev.fencing.core.ForeignTokenException} if an action on
     * one of {@code targets} (the fenced actions, by position; null for the caller's own) failed its
     * condition against a token the policy refuses or an item fenced by another resource — the stored item from the cancellation reason, else from {@code read} (a server
     * may not return it) — otherwise {@code e} itself.
     */
    static RuntimeException staleOr(TransactionCanceledException e, FencingToken token, List<Target> targets,
            RequestFencer fencer, BiFunction<String, Map<String, AttributeValue>, Map<String, AttributeValue>> read) {
        List<CancellationReason> reasons = e.hasCancellationReasons() ? e.cancellationReasons() : List.of();
        for (int i = 0; i < reasons.size() && i < targets.size(); i++) {
            Target target = targets.get(i);
            if (target == null || !"ConditionalCheckFailed".equals(reasons.get(i).code())) {
                continue;
            }
            Map<String, AttributeValue> stored = reasons.get(i).hasItem() ? reasons.get(i).item()
                    : read.apply(target.table(), target.key());
            RuntimeException refusal = fencer.refusal(stored, token, target.table(), target.key());
            if (refusal != null) {
                return refusal;
            }
        }
        return e;
    }

    private static PutItemRequest fenced(RequestFencer fencer, FencingToken token, String table, WriteRequest write,
            List<String> keys) {
        if ((write.putRequest() == null) == (write.deleteRequest() == null)) {
            throw new IllegalArgumentException("each write request of a batch needs exactly one of PutRequest and"
                    + " DeleteRequest, got " + write);
        }
        if (write.putRequest() != null) {
            return fencer.fence(token, PutItemRequest.builder().tableName(table).item(write.putRequest().item()).build(), keys);
        }
        return fencer.tombstone(token, DeleteItemRequest.builder().tableName(table).key(write.deleteRequest().key()).build(),
                keys);
    }
}
