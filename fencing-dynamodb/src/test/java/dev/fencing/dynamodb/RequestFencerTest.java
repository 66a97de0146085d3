package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Example;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/** Condition merging is pure logic: property-tested over generated caller expressions. */
class RequestFencerTest {

    private final RequestFencer fencer = new RequestFencer("fencing_token", "fencing_deleted", Policy.MONOTONIC);

    record CallerRequest(String condition, Map<String, String> names, Map<String, AttributeValue> values) {}

    /** Placeholders chosen to collide: the wrapper's own first choices and their suffixed forms. */
    @Provide
    Arbitrary<CallerRequest> callerRequests() {
        Arbitrary<String> namePlaceholders = Arbitraries.of("#fencing_token", "#fencing_token_1", "#fencing_token_2",
                "#fencing_token_10", "#a", "#fencing_tokenx");
        Arbitrary<String> valuePlaceholders = Arbitraries.of(":fencing_token", ":fencing_token_1", ":fencing_token_2",
                ":v", ":fencing_token_1x");
        Arbitrary<String> comparison = Combinators.combine(namePlaceholders, valuePlaceholders,
                Arbitraries.of("=", "<>", "<", ">=")).as((n, v, op) -> n + " " + op + " " + v);
        Arbitrary<String> condition = comparison.list().ofMinSize(0).ofMaxSize(4)
                .map(parts -> parts.isEmpty() ? null : String.join(" AND ", parts));
        Arbitrary<Map<String, String>> names = namePlaceholders.list().ofMaxSize(4)
                .map(list -> {
                    Map<String, String> map = new HashMap<>();
                    list.forEach(n -> map.put(n, "attr" + Math.abs(n.hashCode() % 7)));
                    return map;
                });
        Arbitrary<Map<String, AttributeValue>> values = valuePlaceholders.list().ofMaxSize(4)
                .map(list -> {
                    Map<String, AttributeValue> map = new HashMap<>();
                    list.forEach(v -> map.put(v, AttributeValue.fromN("1")));
                    return map;
                });
        return Combinators.combine(condition, names, values).as(CallerRequest::new);
    }

    @Property(tries = 500)
    void theTokenPlaceholdersNeverCollideAndTheCallersPartsSurvive(@ForAll("callerRequests") CallerRequest caller) {
        RequestFencer.Condition merged = fencer.condition(FencingToken.of("r", 7), caller.condition(), caller.names(),
                caller.values(), List.of());

        assertThat(caller.names()).doesNotContainKey(merged.nameRef());
        assertThat(caller.values()).doesNotContainKey(merged.valueRef());
        if (caller.condition() != null) {
            assertThat(Placeholders.mentions(caller.condition(), merged.nameRef())).isFalse();
            assertThat(Placeholders.mentions(caller.condition(), merged.valueRef())).isFalse();
            assertThat(merged.expression()).startsWith("(" + caller.condition() + ") AND (");
        }
        assertThat(merged.names()).containsAllEntriesOf(caller.names()).containsEntry(merged.nameRef(), "fencing_token");
        assertThat(merged.values()).containsAllEntriesOf(caller.values())
                .containsEntry(merged.valueRef(), AttributeValue.fromN("7"));
        assertThat(merged.expression()).endsWith("attribute_not_exists(" + merged.nameRef() + ") OR " + merged.nameRef()
                + " <= " + merged.valueRef() + (caller.condition() == null ? "" : ")"));
    }

    @Example
    void theTokenIsSetInTheCallersSetClauseAndTheTombstoneMarkerRemoved() {
        UpdateItemRequest request = UpdateItemRequest.builder().tableName("t").key(Map.of("pk", AttributeValue.fromS("k")))
                .updateExpression("REMOVE old SET balance = :b ADD visits :one")
                .expressionAttributeValues(Map.of(":b", AttributeValue.fromN("1"), ":one", AttributeValue.fromN("1")))
                .build();
        UpdateItemRequest fenced = fencer.fence(FencingToken.of("k", 3), request, List.of("pk"));
        assertThat(fenced.updateExpression())
                .isEqualTo("REMOVE #fencing_deleted, old SET #fencing_token = :fencing_token, balance = :b ADD visits :one");
        assertThat(fenced.conditionExpression())
                .isEqualTo("attribute_not_exists(#fencing_token) OR #fencing_token <= :fencing_token");
    }

    @Example
    void strictUsesLessThan() {
        RequestFencer strict = new RequestFencer("t", "d", Policy.STRICT);
        assertThat(strict.condition(FencingToken.of("r", 1), null, Map.of(), Map.of(), List.of()).expression())
                .isEqualTo("attribute_not_exists(#fencing_token) OR #fencing_token < :fencing_token");
    }

    @Example
    void placeholdersAreWholeTokens() {
        assertThat(Placeholders.mentions("#fencing_token_1 = :x", "#fencing_token")).isFalse();
        assertThat(Placeholders.mentions("#fencing_token = :x", "#fencing_token")).isTrue();
        assertThat(Placeholders.free("#fencing_token", Map.of("#fencing_token", "a"), List.of("#fencing_token_1 = :x")))
                .isEqualTo("#fencing_token_2");
    }
}
