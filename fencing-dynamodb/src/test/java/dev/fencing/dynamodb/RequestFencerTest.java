package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeAction;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.AttributeValueUpdate;
import software.amazon.awssdk.services.dynamodb.model.ConditionalOperator;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ExpectedAttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/** Condition merging is pure logic: tested over generated caller expressions (plain JUnit with a fixed seed). */
class RequestFencerTest {

    private final RequestFencer fencer = new RequestFencer("fencing_token", "fencing_deleted", Policy.MONOTONIC);

    record CallerRequest(String condition, Map<String, String> names, Map<String, AttributeValue> values) {}

    private static final List<String> NAME_PLACEHOLDERS = List.of("#fencing_token", "#fencing_token_1", "#fencing_token_2",
            "#fencing_token_10", "#a", "#fencing_tokenx");
    private static final List<String> VALUE_PLACEHOLDERS = List.of(":fencing_token", ":fencing_token_1", ":fencing_token_2",
            ":v", ":fencing_token_1x");
    private static final List<String> OPERATORS = List.of("=", "<>", "<", ">=");

    /** Placeholders chosen to collide: the wrapper's own first choices and their suffixed forms. */
    private static CallerRequest callerRequest(Random random) {
        List<String> parts = new ArrayList<>();
        for (int i = random.nextInt(5); i > 0; i--) {
            parts.add(pick(random, NAME_PLACEHOLDERS) + " " + pick(random, OPERATORS) + " " + pick(random, VALUE_PLACEHOLDERS));
        }
        Map<String, String> names = new HashMap<>();
        for (int i = random.nextInt(5); i > 0; i--) {
            String name = pick(random, NAME_PLACEHOLDERS);
            names.put(name, "attr" + Math.abs(name.hashCode() % 7));
        }
        Map<String, AttributeValue> values = new HashMap<>();
        for (int i = random.nextInt(5); i > 0; i--) {
            values.put(pick(random, VALUE_PLACEHOLDERS), AttributeValue.fromN("1"));
        }
        return new CallerRequest(parts.isEmpty() ? null : String.join(" AND ", parts), names, values);
    }

    private static String pick(Random random, List<String> from) {
        return from.get(random.nextInt(from.size()));
    }

    /** 500 generated caller requests from a fixed seed (printed in each assertion's description, to replay). */
    @Test
    void theTokenPlaceholdersNeverCollideAndTheCallersPartsSurvive() {
        Random random = new Random(20261118L);
        for (int attempt = 0; attempt < 500; attempt++) {
            CallerRequest caller = callerRequest(random);
            String described = "attempt " + attempt + " (seed 20261118): " + caller;
            RequestFencer.Condition merged = fencer.condition(FencingToken.of("r", 7), caller.condition(), caller.names(),
                    caller.values(), List.of());

            assertThat(caller.names()).as(described).doesNotContainKey(merged.nameRef());
            assertThat(caller.values()).as(described).doesNotContainKey(merged.valueRef());
            if (caller.condition() != null) {
                assertThat(Placeholders.mentions(caller.condition(), merged.nameRef())).as(described).isFalse();
                assertThat(Placeholders.mentions(caller.condition(), merged.valueRef())).as(described).isFalse();
                assertThat(merged.expression()).as(described).startsWith("(" + caller.condition() + ") AND (");
            }
            assertThat(merged.names()).as(described).containsAllEntriesOf(caller.names())
                    .containsEntry(merged.nameRef(), "fencing_token");
            assertThat(merged.values()).as(described).containsAllEntriesOf(caller.values())
                    .containsEntry(merged.valueRef(), AttributeValue.fromN("7"));
            assertThat(merged.expression()).as(described).endsWith("(attribute_not_exists(" + merged.nameRef() + ") OR "
                    + merged.nameRef() + " <= " + merged.valueRef() + ")" + (caller.condition() == null ? "" : ")"));
            assertThat(caller.names()).as(described).doesNotContainKey(merged.resourceNameRef());
            assertThat(caller.values()).as(described).doesNotContainKey(merged.resourceValueRef());
            assertThat(merged.names()).as(described).containsEntry(merged.resourceNameRef(), "fencing_resource");
            assertThat(merged.values()).as(described).containsEntry(merged.resourceValueRef(), AttributeValue.fromS("r"));
        }
    }

    @Test
    void theTokenIsSetInTheCallersSetClauseAndTheTombstoneMarkerRemoved() {
        UpdateItemRequest request = UpdateItemRequest.builder().tableName("t").key(Map.of("pk", AttributeValue.fromS("k")))
                .updateExpression("REMOVE old SET balance = :b ADD visits :one")
                .expressionAttributeValues(Map.of(":b", AttributeValue.fromN("1"), ":one", AttributeValue.fromN("1")))
                .build();
        UpdateItemRequest fenced = fencer.fence(FencingToken.of("k", 3), request, List.of("pk"));
        assertThat(fenced.updateExpression())
                .isEqualTo("REMOVE #fencing_deleted, old SET #fencing_token = :fencing_token, #fencing_resource = :fencing_resource,"
                        + " balance = :b ADD visits :one");
        assertThat(fenced.conditionExpression())
                .isEqualTo("(attribute_not_exists(#fencing_resource) OR #fencing_resource = :fencing_resource) AND (attribute_not_exists(#fencing_token) OR #fencing_token <= :fencing_token)");
    }

    @Test
    void strictUsesLessThan() {
        RequestFencer strict = new RequestFencer("t", "d", Policy.STRICT);
        assertThat(strict.condition(FencingToken.of("r", 1), null, Map.of(), Map.of(), List.of()).expression())
                .isEqualTo("(attribute_not_exists(#fencing_resource) OR #fencing_resource = :fencing_resource) AND (attribute_not_exists(#fencing_token) OR #fencing_token < :fencing_token)");
    }

    @Test
    void placeholdersAreWholeTokens() {
        assertThat(Placeholders.mentions("#fencing_token_1 = :x", "#fencing_token")).isFalse();
        assertThat(Placeholders.mentions("#fencing_token = :x", "#fencing_token")).isTrue();
        assertThat(Placeholders.free("#fencing_token", Map.of("#fencing_token", "a"), List.of("#fencing_token_1 = :x")))
                .isEqualTo("#fencing_token_2");
    }

    private static final List<String> KEY = List.of("pk");

    private static UpdateItemRequest.Builder update(String expression) {
        return UpdateItemRequest.builder().tableName("t").key(Map.of("pk", AttributeValue.fromS("a")))
                .updateExpression(expression);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fencing_token", "fencing_deleted", "fencing_resource", "fencing_write"})
    void anUpdateExpressionWritingAReservedAttributeThroughAPlaceholderIsRefused(String attribute) {
        UpdateItemRequest request = update("SET #n = :v, #x = :v").expressionAttributeNames(Map.of("#n", "name",
                "#x", attribute)).expressionAttributeValues(Map.of(":v", AttributeValue.fromN("1"))).build();

        assertThatThrownBy(() -> fencer.fence(FencingToken.of("r", 7), request, KEY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + attribute + "'");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fencing_token", "fencing_resource", "fencing_write"})
    void anUpdateExpressionWritingAReservedAttributeByNameIsRefused(String attribute) {
        UpdateItemRequest request = update("SET n = :v, " + attribute + " = :v")
                .expressionAttributeValues(Map.of(":v", AttributeValue.fromN("1"))).build();

        assertThatThrownBy(() -> fencer.fence(FencingToken.of("r", 7), request, KEY))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + attribute + "'");
    }

    @Test
    void aPlaceholderNamingAReservedAttributeThatTheUpdateDoesNotUseIsAllowed() {
        UpdateItemRequest request = update("SET #n = :v").conditionExpression("#t > :v")
                .expressionAttributeNames(Map.of("#n", "name", "#t", "fencing_token"))
                .expressionAttributeValues(Map.of(":v", AttributeValue.fromN("1"))).build();

        assertThat(fencer.fence(FencingToken.of("r", 7), request, KEY).updateExpression()).contains("#n = :v");
    }

    @Test
    void aFencedUpdateKeepsTheCallersNamesAndValues() {
        UpdateItemRequest request = update("SET #n = :v").conditionExpression("#c = :old")
                .expressionAttributeNames(Map.of("#n", "name", "#c", "count"))
                .expressionAttributeValues(Map.of(":v", AttributeValue.fromS("x"), ":old", AttributeValue.fromN("2")))
                .build();

        UpdateItemRequest fenced = fencer.fence(FencingToken.of("r", 7), request, KEY);

        assertThat(fenced.expressionAttributeNames()).containsEntry("#n", "name").containsEntry("#c", "count")
                .containsValues("fencing_token", "fencing_resource", "fencing_deleted");
        assertThat(fenced.expressionAttributeValues()).containsEntry(":v", AttributeValue.fromS("x"))
                .containsEntry(":old", AttributeValue.fromN("2"))
                .containsValues(AttributeValue.fromN("7"), AttributeValue.fromS("r"));
        assertThat(fenced.conditionExpression()).startsWith("(#c = :old) AND (");
    }

    @Test
    void aFencedPutKeepsTheCallersNamesValuesAndItem() {
        PutItemRequest request = PutItemRequest.builder().tableName("t")
                .item(Map.of("pk", AttributeValue.fromS("a"), "n", AttributeValue.fromN("1")))
                .conditionExpression("#n < :max").expressionAttributeNames(Map.of("#n", "n"))
                .expressionAttributeValues(Map.of(":max", AttributeValue.fromN("9"))).build();

        PutItemRequest fenced = fencer.fence(FencingToken.of("r", 7), request, KEY);

        assertThat(fenced.item()).containsEntry("n", AttributeValue.fromN("1"))
                .containsEntry("fencing_token", AttributeValue.fromN("7"))
                .containsEntry("fencing_resource", AttributeValue.fromS("r"));
        assertThat(fenced.expressionAttributeNames()).containsEntry("#n", "n");
        assertThat(fenced.expressionAttributeValues()).containsEntry(":max", AttributeValue.fromN("9"));
        assertThat(fenced.conditionExpression()).startsWith("(#n < :max) AND (");
    }

    @Test
    void aFencedDeleteKeepsTheCallersConditionNamesAndValues() {
        DeleteItemRequest request = DeleteItemRequest.builder().tableName("t")
                .key(Map.of("pk", AttributeValue.fromS("a"))).conditionExpression("#s = :open")
                .expressionAttributeNames(Map.of("#s", "state"))
                .expressionAttributeValues(Map.of(":open", AttributeValue.fromS("open"))).build();

        PutItemRequest tombstone = fencer.tombstone(FencingToken.of("r", 7), request, KEY);

        assertThat(tombstone.item()).containsOnly(Map.entry("pk", AttributeValue.fromS("a")),
                Map.entry("fencing_token", AttributeValue.fromN("7")),
                Map.entry("fencing_resource", AttributeValue.fromS("r")),
                Map.entry("fencing_deleted", AttributeValue.fromBool(true)));
        assertThat(tombstone.expressionAttributeNames()).containsEntry("#s", "state");
        assertThat(tombstone.expressionAttributeValues()).containsEntry(":open", AttributeValue.fromS("open"));
        assertThat(tombstone.conditionExpression()).startsWith("(#s = :open) AND (");
    }

    private static final Map<String, ExpectedAttributeValue> EXPECTED = Map.of("n",
            ExpectedAttributeValue.builder().exists(false).build());
    private static final Map<String, AttributeValue> KEY_A = Map.of("pk", AttributeValue.fromS("a"));

    @Test
    void legacyParametersAreRefusedOnEveryWriteByName() {
        FencingToken token = FencingToken.of("r", 7);
        assertThatThrownBy(() -> fencer.fence(token, PutItemRequest.builder().tableName("t").item(KEY_A)
                .expected(EXPECTED).build(), KEY)).hasMessageContaining("PutItem with the legacy 'Expected'");
        assertThatThrownBy(() -> fencer.fence(token, PutItemRequest.builder().tableName("t").item(KEY_A)
                .conditionalOperator(ConditionalOperator.AND).build(), KEY))
                .hasMessageContaining("PutItem with the legacy 'ConditionalOperator'");
        assertThatThrownBy(() -> fencer.fence(token, update("SET n = :v").expected(EXPECTED).build(), KEY))
                .hasMessageContaining("UpdateItem with the legacy 'Expected'");
        assertThatThrownBy(() -> fencer.fence(token, update("SET n = :v")
                .conditionalOperator(ConditionalOperator.OR).build(), KEY))
                .hasMessageContaining("UpdateItem with the legacy 'ConditionalOperator'");
        assertThatThrownBy(() -> fencer.fence(token, update(null).attributeUpdates(Map.of("n",
                AttributeValueUpdate.builder().action(AttributeAction.PUT).value(AttributeValue.fromN("1")).build()))
                .build(), KEY)).hasMessageContaining("UpdateItem with the legacy 'AttributeUpdates'");
        assertThatThrownBy(() -> fencer.tombstone(token, DeleteItemRequest.builder().tableName("t").key(KEY_A)
                .expected(EXPECTED).build(), KEY)).hasMessageContaining("DeleteItem with the legacy 'Expected'");
        assertThatThrownBy(() -> fencer.tombstone(token, DeleteItemRequest.builder().tableName("t").key(KEY_A)
                .conditionalOperator(ConditionalOperator.AND).build(), KEY))
                .hasMessageContaining("DeleteItem with the legacy 'ConditionalOperator'");
    }

    @Test
    void emptyLegacyParametersAreNoReasonToRefuse() {
        FencingToken token = FencingToken.of("r", 7);
        assertThat(fencer.fence(token, PutItemRequest.builder().tableName("t").item(KEY_A).expected(Map.of()).build(),
                KEY).conditionExpression()).contains("#fencing_token");
        assertThat(fencer.fence(token, update("SET n = :v").expected(Map.of()).attributeUpdates(Map.of())
                .expressionAttributeValues(Map.of(":v", AttributeValue.fromN("1"))).build(), KEY)
                .conditionExpression()).contains("#fencing_token");
        assertThat(fencer.tombstone(token, DeleteItemRequest.builder().tableName("t").key(KEY_A).expected(Map.of())
                .build(), KEY).conditionExpression()).contains("#fencing_token");
    }

    @Test
    void everyWriteNeedsItsTableAndWholeKey() {
        FencingToken token = FencingToken.of("r", 7);
        Map<String, AttributeValue> noKey = Map.of("n", AttributeValue.fromN("1"));
        assertThatThrownBy(() -> fencer.fence(token, PutItemRequest.builder().tableName("t").item(noKey).build(), KEY))
                .hasMessageContaining("lacks key attribute(s) [pk]");
        assertThatThrownBy(() -> fencer.fence(token, update("SET n = :v").key(noKey).build(), KEY))
                .hasMessageContaining("lacks key attribute(s) [pk]");
        assertThatThrownBy(() -> fencer.tombstone(token, DeleteItemRequest.builder().tableName("t").key(noKey).build(),
                KEY)).hasMessageContaining("lacks key attribute(s) [pk]");
        assertThatThrownBy(() -> fencer.tombstone(token, DeleteItemRequest.builder().tableName(" ").key(KEY_A).build(),
                KEY)).hasMessageContaining("needs a tableName");
        assertThatThrownBy(() -> fencer.fence(token, PutItemRequest.builder().tableName("t").item(KEY_A).build(),
                List.of("pk", "fencing_token"))).hasMessageContaining("must not be key attributes");
    }

    @Test
    void aRefusalByAnotherLockIsToldToTheListenerAsAFailedWrite() {
        List<String> heard = new ArrayList<>();
        RequestFencer listened = new RequestFencer("fencing_token", "fencing_deleted", Policy.MONOTONIC,
                new dev.fencing.core.FencingListener() {
                    @Override
                    public void onWriteFailed(String key, dev.fencing.core.FencingException failure) {
                        heard.add(key + " " + failure.getClass().getSimpleName());
                    }

                    @Override
                    public void onStaleWriteRejected(dev.fencing.core.StaleTokenException rejection) {
                        heard.add(rejection.key() + " stale");
                    }
                });
        Map<String, AttributeValue> foreign = Map.of("fencing_resource", AttributeValue.fromS("other"),
                "fencing_token", AttributeValue.fromN("3"));
        Map<String, AttributeValue> newer = Map.of("fencing_resource", AttributeValue.fromS("r"),
                "fencing_token", AttributeValue.fromN("9"));

        assertThat(listened.refusal(foreign, FencingToken.of("r", 7), "t", KEY_A))
                .isInstanceOf(dev.fencing.core.ForeignTokenException.class);
        assertThat(listened.refusal(newer, FencingToken.of("r", 7), "t", KEY_A))
                .isInstanceOf(dev.fencing.core.StaleTokenException.class);
        assertThat(listened.refusal(newer, FencingToken.of("r", 9), "t", KEY_A)).isNull();
        assertThat(heard).containsExactly("t{pk=a} ForeignTokenException", "t{pk=a} stale");
    }
}
