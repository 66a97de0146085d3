package dev.fencing.dynamodb;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.SafeListener;
import dev.fencing.core.spi.Refusals;
import dev.fencing.core.spi.WriteOutcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Turns a caller's request into its fenced form, and a failed condition into the right
 * exception. Pure request shaping, shared by the sync and async wrappers.
 *
 * <p>The condition added is {@code (attribute_not_exists(#r) OR #r = :r) AND
 * (attribute_not_exists(#t) OR #t <= :t)} ({@code <} under STRICT), AND-ed in parentheses with the
 * caller's own, where {@code #r} is {@link #RESOURCE_ATTRIBUTE}, the lock whose tokens fence the
 * item (string equality: byte for byte); every fenced write stores its token's resource there. The
 * placeholders are chosen not to collide with the caller's ({@link Placeholders}).
 */
final class RequestFencer {

    /** The attribute holding the resource (lock name) whose tokens fence the item. */
    static final String RESOURCE_ATTRIBUTE = "fencing_resource";

    private final String tokenAttribute;
    private final String tombstoneAttribute;
    private final Policy policy;
    private final TombstoneReads reads;
    private final FencingListener listener;

    RequestFencer(String tokenAttribute, String tombstoneAttribute, Policy policy) {
        this(tokenAttribute, tombstoneAttribute, policy, FencingListener.NONE);
    }

    /** As the other, reporting every refusal it finds to {@code listener} (and logging it at WARN). */
    RequestFencer(String tokenAttribute, String tombstoneAttribute, Policy policy, FencingListener listener) {
        this.listener = SafeListener.of(listener);
        if (tokenAttribute.equals(tombstoneAttribute)) {
            throw new IllegalArgumentException("tokenAttribute and tombstoneAttribute must differ, both are '"
                    + tokenAttribute + "'");
        }
        List<String> reserved = List.of(LostReplies.ATTRIBUTE, RESOURCE_ATTRIBUTE);
        if (reserved.contains(tokenAttribute) || reserved.contains(tombstoneAttribute)) {
            String what = reserved.contains(tokenAttribute) ? "tokenAttribute" : "tombstoneAttribute";
            throw new IllegalArgumentException(what + " '" + (reserved.contains(tokenAttribute) ? tokenAttribute
                    : tombstoneAttribute) + "' is written by every fenced write; choose a name other than " + reserved);
        }
        this.tokenAttribute = tokenAttribute;
        this.tombstoneAttribute = tombstoneAttribute;
        this.policy = policy;
        this.reads = new TombstoneReads(tombstoneAttribute);
    }

    String tokenAttribute() {
        return tokenAttribute;
    }

    String tombstoneAttribute() {
        return tombstoneAttribute;
    }

    Policy policy() {
        return policy;
    }

    TombstoneReads reads() {
        return reads;
    }

    PutItemRequest fence(FencingToken token, PutItemRequest request, List<String> keyAttributes) {
        return fence(token, null, request, keyAttributes);
    }

    /**
     * The fenced put; with a {@code writeId}, the item carries it in {@link LostReplies#ATTRIBUTE}
     * and the request is sent without blind retries.
     */
    PutItemRequest fence(FencingToken token, @Nullable String writeId, PutItemRequest request, List<String> keyAttributes) {
        refuseLegacy(request.hasExpected() && !request.expected().isEmpty(), request.conditionalOperator() != null,
                "PutItem");
        requireKey(request.tableName(), request.item(), keyAttributes, "item");
        if (request.item().containsKey(tokenAttribute) || request.item().containsKey(tombstoneAttribute)
                || request.item().containsKey(LostReplies.ATTRIBUTE) || request.item().containsKey(RESOURCE_ATTRIBUTE)) {
            throw new IllegalArgumentException("the item must not carry '" + tokenAttribute + "', '"
                    + tombstoneAttribute + "', '" + RESOURCE_ATTRIBUTE + "' or '" + LostReplies.ATTRIBUTE
                    + "': the fenced put writes them itself");
        }
        Map<String, AttributeValue> item = new HashMap<>(request.item());
        item.put(tokenAttribute, number(token.value()));
        item.put(RESOURCE_ATTRIBUTE, AttributeValue.fromS(token.resource()));
        if (writeId != null) {
            item.put(LostReplies.ATTRIBUTE, AttributeValue.fromS(writeId));
        }
        Condition condition = notThisWrite(writeId, condition(token, request.conditionExpression(),
                names(request.expressionAttributeNames()), values(request.expressionAttributeValues()), List.of()), "");
        PutItemRequest.Builder fenced = request.toBuilder()
                .item(item)
                .conditionExpression(condition.expression())
                .expressionAttributeNames(condition.names())
                .expressionAttributeValues(condition.values())
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
        if (writeId != null) {
            fenced.overrideConfiguration(AwsReplies.withoutBlindRetries(request.overrideConfiguration()));
        }
        return fenced.build();
    }

    UpdateItemRequest fence(FencingToken token, UpdateItemRequest request, List<String> keyAttributes) {
        return fence(token, null, request, keyAttributes);
    }

    /** The fenced update; {@code writeId} as for the put. */
    UpdateItemRequest fence(FencingToken token, @Nullable String writeId, UpdateItemRequest request, List<String> keyAttributes) {
        refuseLegacy(request.hasExpected() && !request.expected().isEmpty(), request.conditionalOperator() != null,
                "UpdateItem");
        if (request.hasAttributeUpdates() && !request.attributeUpdates().isEmpty()) {
            throw legacy("UpdateItem", "AttributeUpdates");
        }
        requireKey(request.tableName(), request.key(), keyAttributes, "key");
        Map<String, String> names = names(request.expressionAttributeNames());
        refuseWritesTo(request.updateExpression(), names);
        Condition condition = condition(token, request.conditionExpression(), names,
                values(request.expressionAttributeValues()), List.of(Objects.toString(request.updateExpression(), "")));
        String tombstone = Placeholders.free("#fencing_deleted", condition.names(),
                List.of(condition.expression(), Objects.toString(request.updateExpression(), "")));
        Map<String, String> allNames = new HashMap<>(condition.names());
        allNames.put(tombstone, tombstoneAttribute);
        String update = UpdateExpressions.addSet(request.updateExpression(), condition.nameRef() + " = "
                + condition.valueRef() + ", " + condition.resourceNameRef() + " = " + condition.resourceValueRef());
        update = UpdateExpressions.addRemove(update, tombstone); // writing to a tombstone brings the item back
        if (writeId != null) {
            condition = notThisWrite(writeId, condition.withNames(allNames), update);
            update = UpdateExpressions.addSet(update, condition.writeNameRef() + " = " + condition.writeValueRef());
            allNames = new HashMap<>(condition.names());
        }
        UpdateItemRequest.Builder fenced = request.toBuilder()
                .updateExpression(update)
                .conditionExpression(condition.expression())
                .expressionAttributeNames(allNames)
                .expressionAttributeValues(condition.values())
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
        if (writeId != null) {
            fenced.overrideConfiguration(AwsReplies.withoutBlindRetries(request.overrideConfiguration()));
        }
        return fenced.build();
    }

    /** A fenced delete: a put of a tombstone that keeps the key and the token, nothing else. */
    PutItemRequest tombstone(FencingToken token, DeleteItemRequest request, List<String> keyAttributes) {
        return tombstone(token, null, request, keyAttributes);
    }

    /** The fenced delete's tombstone; {@code writeId} as for the put. */
    PutItemRequest tombstone(FencingToken token, @Nullable String writeId, DeleteItemRequest request, List<String> keyAttributes) {
        refuseLegacy(request.hasExpected() && !request.expected().isEmpty(), request.conditionalOperator() != null,
                "DeleteItem");
        requireKey(request.tableName(), request.key(), keyAttributes, "key");
        Map<String, AttributeValue> item = new HashMap<>(request.key());
        item.put(tokenAttribute, number(token.value()));
        item.put(RESOURCE_ATTRIBUTE, AttributeValue.fromS(token.resource()));
        item.put(tombstoneAttribute, AttributeValue.fromBool(true));
        if (writeId != null) {
            item.put(LostReplies.ATTRIBUTE, AttributeValue.fromS(writeId));
        }
        Condition condition = notThisWrite(writeId, condition(token, request.conditionExpression(),
                names(request.expressionAttributeNames()), values(request.expressionAttributeValues()), List.of()), "");
        PutItemRequest.Builder put = PutItemRequest.builder()
                .tableName(request.tableName())
                .item(item)
                .conditionExpression(condition.expression())
                .expressionAttributeNames(condition.names())
                .expressionAttributeValues(condition.values())
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
        if (request.returnValues() != null) {
            put.returnValues(request.returnValuesAsString());
        }
        if (writeId != null) {
            put.overrideConfiguration(AwsReplies.withoutBlindRetries(request.overrideConfiguration()));
        }
        return put.build();
    }

    /** The fence item's part of a transaction: raise its token if the policy accepts it. */
    Update fenceUpdate(FencingToken token, FenceItem fence) {
        Condition condition = condition(token, null, Map.of(), Map.of(), List.of());
        return Update.builder()
                .tableName(fence.tableName())
                .key(fence.key())
                .updateExpression("SET " + condition.nameRef() + " = " + condition.valueRef() + ", "
                        + condition.resourceNameRef() + " = " + condition.resourceValueRef())
                .conditionExpression(condition.expression())
                .expressionAttributeNames(condition.names())
                .expressionAttributeValues(condition.values())
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
    }

    Condition condition(FencingToken token, @Nullable String callerCondition, Map<String, String> callerNames,
            Map<String, AttributeValue> callerValues, List<String> otherExpressions) {
        List<String> expressions = new ArrayList<>(otherExpressions);
        expressions.add(Objects.toString(callerCondition, ""));
        String nameRef = Placeholders.free("#fencing_token", callerNames, expressions);
        String valueRef = Placeholders.free(":fencing_token", callerValues, expressions);
        String resourceNameRef = Placeholders.free("#fencing_resource", callerNames, expressions);
        String resourceValueRef = Placeholders.free(":fencing_resource", callerValues, expressions);
        // the lock name is checked whether or not a token is stored (an item written outside the
        // toolkit, or by a wrapper with another token attribute, may carry a name but no token)
        String guard = "(attribute_not_exists(" + resourceNameRef + ") OR " + resourceNameRef + " = "
                + resourceValueRef + ") AND (attribute_not_exists(" + nameRef + ") OR " + nameRef
                + (policy == Policy.STRICT ? " < " : " <= ") + valueRef + ")";
        String expression = callerCondition == null || callerCondition.isBlank()
                ? guard
                : "(" + callerCondition + ") AND (" + guard + ")";
        Map<String, String> names = new HashMap<>(callerNames);
        names.put(nameRef, tokenAttribute);
        names.put(resourceNameRef, RESOURCE_ATTRIBUTE);
        Map<String, AttributeValue> values = new HashMap<>(callerValues);
        values.put(valueRef, number(token.value()));
        values.put(resourceValueRef, AttributeValue.fromS(token.resource()));
        return new Condition(expression, names, values, nameRef, valueRef, resourceNameRef, resourceValueRef,
                null, null);
    }

    /**
     * {@code condition} AND "the item was not written by this very write": a re-send of a write that
     * landed (by an HTTP client below the SDK's retry strategy) then fails its condition instead of
     * applying the change again, and the failure shows the write id, so the caller is told "written".
     */
    private static Condition notThisWrite(@Nullable String writeId, Condition condition, String updateExpression) {
        if (writeId == null) {
            return condition;
        }
        List<String> expressions = List.of(condition.expression(), updateExpression);
        String nameRef = Placeholders.free("#fencing_write", condition.names(), expressions);
        String valueRef = Placeholders.free(":fencing_write", condition.values(), expressions);
        Map<String, String> names = new HashMap<>(condition.names());
        names.put(nameRef, LostReplies.ATTRIBUTE);
        Map<String, AttributeValue> values = new HashMap<>(condition.values());
        values.put(valueRef, AttributeValue.fromS(writeId));
        String expression = "(" + condition.expression() + ") AND (attribute_not_exists(" + nameRef + ") OR "
                + nameRef + " <> " + valueRef + ")";
        return new Condition(expression, names, values, condition.nameRef(), condition.valueRef(),
                condition.resourceNameRef(), condition.resourceValueRef(), nameRef, valueRef);
    }

    /**
     * The exception for a failed condition: {@link ForeignTokenException} if the item is fenced by
     * another resource, {@link StaleTokenException} if the stored token is one the policy refuses,
     * otherwise the SDK's own exception (the caller's condition failed).
     */
    RuntimeException staleOr(ConditionalCheckFailedException failure, Map<String, AttributeValue> stored,
            FencingToken token, String table, Map<String, AttributeValue> key) {
        RuntimeException refusal = refusal(stored, token, table, key);
        return refusal != null ? refusal : failure;
    }

    /**
     * The refusal of {@code token} by the {@code stored} item, as for {@link #staleOr}, already
     * reported to the listener (every caller throws it); null if neither its resource nor its token
     * refuses it (so the caller's own condition failed).
     */
    @Nullable
    RuntimeException refusal(Map<String, AttributeValue> stored, FencingToken token, String table,
            Map<String, AttributeValue> key) {
        WriteOutcome outcome = outcome(stored, token);
        return switch (outcome.status()) {
            case FOREIGN -> {
                ForeignTokenException foreign = ForeignTokenException.of(describe(table, key), token,
                        Objects.requireNonNull(outcome.boundResource(), "a FOREIGN outcome names the resource"));
                listener.onWriteFailed(describe(table, key), foreign);
                yield foreign;
            }
            case STALE -> Refusals.reported(listener, StaleTokenException.of(describe(table, key), token,
                    outcome.highWaterMark(), policy));
            default -> null;
        };
    }

    /**
     * What the {@code stored} item says of {@code token}, reported to nobody: {@code foreign} if
     * another lock's tokens fence it, {@code stale} with its mark if the policy refuses the token,
     * else {@code conflict} (the caller's own condition failed). The store's path: the store reports
     * each refusal once, in its own words.
     */
    WriteOutcome outcome(Map<String, AttributeValue> stored, FencingToken token) {
        String bound = resourceOf(stored);
        if (bound != null && !bound.equals(token.resource())) {
            return WriteOutcome.foreign(bound);
        }
        OptionalLong mark = tokenOf(stored);
        if (mark.isPresent() && !policy.accepts(token.value(), mark.getAsLong())) {
            return WriteOutcome.stale(mark.getAsLong());
        }
        return WriteOutcome.conflict();
    }

    /** The resource whose tokens fence {@code item}; null if none is stored. */
    static @Nullable String resourceOf(Map<String, AttributeValue> item) {
        AttributeValue stored = item == null ? null : item.get(RESOURCE_ATTRIBUTE);
        return stored == null ? null : stored.s();
    }

    OptionalLong tokenOf(Map<String, AttributeValue> item) {
        return item == null ? OptionalLong.empty() : Marks.of(item.get(tokenAttribute));
    }

    boolean isTombstone(Map<String, AttributeValue> item) {
        return reads.isTombstone(item);
    }

    static Map<String, AttributeValue> keyOf(Map<String, AttributeValue> item, List<String> keyAttributes) {
        Map<String, AttributeValue> key = new HashMap<>();
        keyAttributes.forEach(name -> key.put(name, item.get(name)));
        return key;
    }

    static String describe(String table, Map<String, AttributeValue> key) {
        StringBuilder text = new StringBuilder(table).append('{');
        key.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            if (text.charAt(text.length() - 1) != '{') {
                text.append(", ");
            }
            AttributeValue v = e.getValue();
            text.append(e.getKey()).append('=').append(v.s() != null ? v.s() : v.n() != null ? v.n() : String.valueOf(v));
        });
        return text.append('}').toString();
    }

    private void refuseWritesTo(String updateExpression, Map<String, String> names) {
        if (updateExpression == null) {
            return;
        }
        for (Map.Entry<String, String> name : names.entrySet()) {
            boolean reserved = name.getValue().equals(tokenAttribute) || name.getValue().equals(tombstoneAttribute)
                    || name.getValue().equals(LostReplies.ATTRIBUTE) || name.getValue().equals(RESOURCE_ATTRIBUTE);
            if (reserved && Placeholders.mentions(updateExpression, name.getKey())) {
                throw new IllegalArgumentException("the update expression must not write '" + name.getValue()
                        + "' (through " + name.getKey() + "): the fenced update writes it itself");
            }
        }
        for (String reserved : List.of(LostReplies.ATTRIBUTE, RESOURCE_ATTRIBUTE)) {
            if (Placeholders.mentions(" " + updateExpression, " " + reserved)) {
                throw new IllegalArgumentException("the update expression must not write '" + reserved
                        + "': the fenced update writes it itself");
            }
        }
        if (Placeholders.mentions(" " + updateExpression, " " + tokenAttribute)) {
            throw new IllegalArgumentException("the update expression must not write '" + tokenAttribute
                    + "': the fenced update writes it itself");
        }
    }

    private void requireKey(String table, Map<String, AttributeValue> item, List<String> keyAttributes, String what) {
        if (keyAttributes.contains(tokenAttribute) || keyAttributes.contains(tombstoneAttribute)) {
            throw new IllegalArgumentException("the token attribute '" + tokenAttribute + "' and the tombstone attribute '"
                    + tombstoneAttribute + "' must not be key attributes of table '" + table + "' (its key is "
                    + keyAttributes + ")");
        }
        if (table == null || table.isBlank()) {
            throw new IllegalArgumentException("the request needs a tableName");
        }
        List<String> missing = keyAttributes.stream().filter(name -> item == null || !item.containsKey(name)).toList();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("the " + what + " of table '" + table + "' lacks key attribute(s) " + missing
                    + "; its key is " + keyAttributes);
        }
    }

    private static void refuseLegacy(boolean expected, boolean conditionalOperator, String operation) {
        if (expected) {
            throw legacy(operation, "Expected");
        }
        if (conditionalOperator) {
            throw legacy(operation, "ConditionalOperator");
        }
    }

    private static IllegalArgumentException legacy(String operation, String parameter) {
        return new IllegalArgumentException(operation + " with the legacy '" + parameter + "' parameter cannot be fenced:"
                + " DynamoDB refuses to mix it with the ConditionExpression the token check needs. Write the condition"
                + " as a ConditionExpression (and UpdateExpression) instead");
    }

    private static Map<String, String> names(Map<String, String> names) {
        return names == null ? Map.of() : names;
    }

    private static Map<String, AttributeValue> values(Map<String, AttributeValue> values) {
        return values == null ? Map.of() : values;
    }

    static AttributeValue number(long value) {
        return Marks.number(value);
    }

    /** A merged condition with the placeholders chosen for the token, its resource and the write id. */
    record Condition(String expression, Map<String, String> names, Map<String, AttributeValue> values, String nameRef,
            String valueRef, String resourceNameRef, String resourceValueRef, @Nullable String writeNameRef,
            @Nullable String writeValueRef) {
        Condition withNames(Map<String, String> allNames) {
            return new Condition(expression, allNames, values, nameRef, valueRef, resourceNameRef, resourceValueRef,
                    writeNameRef, writeValueRef);
        }
    }
}
