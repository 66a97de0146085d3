package dev.fencing.dynamodb;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Get;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItem;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsResponse;

/**
 * Reads that never hand out a tombstone. Pure request and response shaping:
 * <ul>
 *   <li>Query and Scan get a filter {@code attribute_not_exists(#d) OR #d <> :d} AND-ed with the
 *       caller's, so the server drops tombstones before they travel;</li>
 *   <li>GetItem, BatchGetItem and TransactGetItems have no filter: a projection gets the
 *       tombstone attribute added (and removed again from the answer), so a tombstone is always
 *       recognised, and is then reported as no item.</li>
 * </ul>
 */
final class TombstoneReads {

    private static final AttributeValue TRUE = AttributeValue.fromBool(true);

    private final String attribute;

    TombstoneReads(String attribute) {
        this.attribute = attribute;
    }

    boolean isTombstone(Map<String, AttributeValue> item) {
        AttributeValue marker = item == null ? null : item.get(attribute);
        return marker != null && Boolean.TRUE.equals(marker.bool());
    }

    List<Map<String, AttributeValue>> present(List<Map<String, AttributeValue>> items) {
        return items.stream().filter(item -> !isTombstone(item)).toList();
    }

    QueryRequest exclude(QueryRequest request) {
        refuseLegacy("Query", request.hasKeyConditions() && !request.keyConditions().isEmpty(), "KeyConditions");
        refuseLegacy("Query", request.hasQueryFilter() && !request.queryFilter().isEmpty(), "QueryFilter");
        refuseLegacy("Query", request.hasAttributesToGet() && !request.attributesToGet().isEmpty(), "AttributesToGet");
        refuseLegacy("Query", request.conditionalOperator() != null, "ConditionalOperator");
        Filter filter = filter(request.filterExpression(), request.expressionAttributeNames(),
                request.expressionAttributeValues(),
                List.of(text(request.keyConditionExpression()), text(request.projectionExpression())));
        return request.toBuilder().filterExpression(filter.expression()).expressionAttributeNames(filter.names())
                .expressionAttributeValues(filter.values()).build();
    }

    ScanRequest exclude(ScanRequest request) {
        refuseLegacy("Scan", request.hasScanFilter() && !request.scanFilter().isEmpty(), "ScanFilter");
        refuseLegacy("Scan", request.hasAttributesToGet() && !request.attributesToGet().isEmpty(), "AttributesToGet");
        refuseLegacy("Scan", request.conditionalOperator() != null, "ConditionalOperator");
        Filter filter = filter(request.filterExpression(), request.expressionAttributeNames(),
                request.expressionAttributeValues(), List.of(text(request.projectionExpression())));
        return request.toBuilder().filterExpression(filter.expression()).expressionAttributeNames(filter.names())
                .expressionAttributeValues(filter.values()).build();
    }

    /** {@code request} with the tombstone attribute in its projection, if it has one. */
    Marked<GetItemRequest, Boolean> mark(GetItemRequest request) {
        if (request.hasAttributesToGet() && !request.attributesToGet().isEmpty()) {
            List<String> attributes = withAttribute(request.attributesToGet());
            return new Marked<>(request.toBuilder().attributesToGet(attributes).build(),
                    attributes.size() > request.attributesToGet().size());
        }
        Projection projection = projection(request.projectionExpression(), request.expressionAttributeNames());
        return projection == null ? new Marked<>(request, false) : new Marked<>(request.toBuilder()
                .projectionExpression(projection.expression()).expressionAttributeNames(projection.names()).build(), true);
    }

    GetItemResponse present(GetItemResponse response, boolean marked) {
        if (!response.hasItem()) {
            return response;
        }
        return isTombstone(response.item()) ? response.toBuilder().item(null).build()
                : marked ? response.toBuilder().item(without(response.item())).build() : response;
    }

    /** {@code request} with the tombstone attribute in each table's projection; {@link Marked#marked()} lists those tables. */
    Marked<BatchGetItemRequest, Set<String>> mark(BatchGetItemRequest request) {
        Map<String, KeysAndAttributes> tables = new LinkedHashMap<>();
        Set<String> marked = new HashSet<>();
        request.requestItems().forEach((table, keys) -> {
            KeysAndAttributes shaped = keys;
            if (keys.hasAttributesToGet() && !keys.attributesToGet().isEmpty()) {
                List<String> attributes = withAttribute(keys.attributesToGet());
                shaped = keys.toBuilder().attributesToGet(attributes).build();
                if (attributes.size() > keys.attributesToGet().size()) {
                    marked.add(table);
                }
            } else {
                Projection projection = projection(keys.projectionExpression(), keys.expressionAttributeNames());
                if (projection != null) {
                    shaped = keys.toBuilder().projectionExpression(projection.expression())
                            .expressionAttributeNames(projection.names()).build();
                    marked.add(table);
                }
            }
            tables.put(table, shaped);
        });
        return new Marked<>(request.toBuilder().requestItems(tables).build(), marked);
    }

    /** The response without tombstones; the unprocessed keys are kept for the caller to retry. */
    BatchGetItemResponse present(BatchGetItemResponse response, Set<String> marked) {
        if (!response.hasResponses()) {
            return response;
        }
        Map<String, List<Map<String, AttributeValue>>> tables = new LinkedHashMap<>();
        response.responses().forEach((table, items) -> tables.put(table, items.stream()
                .filter(item -> !isTombstone(item))
                .map(item -> marked.contains(table) ? without(item) : item)
                .toList()));
        return response.toBuilder().responses(tables).build();
    }

    /** {@code request} with the tombstone attribute in each projection; {@link Marked#marked()} lists those positions. */
    Marked<TransactGetItemsRequest, Set<Integer>> mark(TransactGetItemsRequest request) {
        List<TransactGetItem> items = new ArrayList<>();
        Set<Integer> marked = new HashSet<>();
        for (TransactGetItem item : request.transactItems()) {
            Get get = item.get();
            Projection projection = get == null ? null : projection(get.projectionExpression(), get.expressionAttributeNames());
            if (projection == null) {
                items.add(item);
            } else {
                marked.add(items.size());
                items.add(item.toBuilder().get(get.toBuilder().projectionExpression(projection.expression())
                        .expressionAttributeNames(projection.names()).build()).build());
            }
        }
        return new Marked<>(request.toBuilder().transactItems(items).build(), marked);
    }

    /** The responses in the request's order, a tombstone reported as no item (an empty response, as for a missing one). */
    TransactGetItemsResponse present(TransactGetItemsResponse response, Set<Integer> marked) {
        if (!response.hasResponses()) {
            return response;
        }
        List<ItemResponse> items = new ArrayList<>();
        for (ItemResponse item : response.responses()) {
            if (item.hasItem() && isTombstone(item.item())) {
                items.add(ItemResponse.builder().build());
            } else if (item.hasItem() && marked.contains(items.size())) {
                items.add(item.toBuilder().item(without(item.item())).build());
            } else {
                items.add(item);
            }
        }
        return response.toBuilder().responses(items).build();
    }

    private Filter filter(String callerFilter, Map<String, String> callerNames, Map<String, AttributeValue> callerValues,
            List<String> otherExpressions) {
        Map<String, String> names = new HashMap<>(callerNames == null ? Map.of() : callerNames);
        Map<String, AttributeValue> values = new HashMap<>(callerValues == null ? Map.of() : callerValues);
        List<String> expressions = new ArrayList<>(otherExpressions);
        expressions.add(text(callerFilter));
        String nameRef = Placeholders.free("#fencing_deleted", names, expressions);
        String valueRef = Placeholders.free(":fencing_deleted", values, expressions);
        names.put(nameRef, attribute);
        values.put(valueRef, TRUE);
        String guard = "attribute_not_exists(" + nameRef + ") OR " + nameRef + " <> " + valueRef;
        String expression = callerFilter == null || callerFilter.isBlank() ? guard : "(" + callerFilter + ") AND (" + guard + ")";
        return new Filter(expression, names, values);
    }

    private @Nullable Projection projection(String callerProjection, Map<String, String> callerNames) {
        if (callerProjection == null || callerProjection.isBlank()) {
            return null; // the whole item comes back, the marker with it
        }
        if (projects(callerProjection, callerNames)) {
            return null; // already asked for; adding it again would be an overlapping path
        }
        Map<String, String> names = new HashMap<>(callerNames == null ? Map.of() : callerNames);
        String nameRef = Placeholders.free("#fencing_deleted", names, List.of(callerProjection));
        names.put(nameRef, attribute);
        return new Projection(callerProjection + ", " + nameRef, names);
    }

    private boolean projects(String projection, Map<String, String> names) {
        for (String path : projection.split(",")) {
            String top = path.strip().split("[.\\[]", 2)[0].strip();
            String name = top.startsWith("#") && names != null ? names.get(top) : top;
            if (attribute.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private List<String> withAttribute(List<String> attributes) {
        if (attributes.contains(attribute)) {
            return attributes;
        }
        List<String> more = new ArrayList<>(attributes);
        more.add(attribute);
        return more;
    }

    private Map<String, AttributeValue> without(Map<String, AttributeValue> item) {
        if (!item.containsKey(attribute)) {
            return item;
        }
        Map<String, AttributeValue> copy = new LinkedHashMap<>(item);
        copy.remove(attribute);
        return copy;
    }

    private static String text(String expression) {
        return Objects.toString(expression, "");
    }

    private static void refuseLegacy(String operation, boolean present, String parameter) {
        if (present) {
            throw new IllegalArgumentException(operation + " with the legacy '" + parameter + "' parameter cannot drop"
                    + " tombstones: DynamoDB refuses to mix it with the FilterExpression that does. Write it as a"
                    + " KeyConditionExpression, FilterExpression or ProjectionExpression instead");
        }
    }

    /** A request shaped to reveal tombstones, and which of its parts had the marker added (to be removed again). */
    record Marked<R, M>(R request, M marked) {}

    private record Filter(String expression, Map<String, String> names, Map<String, AttributeValue> values) {}

    private record Projection(String expression, Map<String, String> names) {}
}
