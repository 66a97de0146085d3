package dev.fencing.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Policy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbExtensionContext;
import software.amazon.awssdk.enhanced.dynamodb.OperationContext;
import software.amazon.awssdk.enhanced.dynamodb.TableMetadata;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.extensions.AtomicCounterExtension;
import software.amazon.awssdk.enhanced.dynamodb.extensions.ReadModification;
import software.amazon.awssdk.enhanced.dynamodb.extensions.VersionedRecordExtension;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The read side of the extension as pure logic: every enhanced read (TransactGetItems too, which
 * has no server here) passes its items through {@code afterRead}.
 */
class FencingTokenExtensionTest {

    private final FencingTokenExtension extension = FencingTokenExtension.create();
    private final TableSchema<Account> schema = TableSchema.fromBean(Account.class);

    private ReadModification read(Map<String, AttributeValue> item) {
        return extension.afterRead(new DynamoDbExtensionContext.AfterRead() {
            @Override
            public Map<String, AttributeValue> items() {
                return item;
            }

            @Override
            public OperationContext operationContext() {
                return null;
            }

            @Override
            public TableMetadata tableMetadata() {
                return schema.tableMetadata();
            }
        });
    }

    @Test
    void aTombstoneIsReadAsNoItemAndTheBeanSchemaMapsThatToNull() {
        ReadModification tombstone = read(Map.of("pk", AttributeValue.fromS("a"), "fencing_token", AttributeValue.fromN("6"),
                "fencing_deleted", AttributeValue.fromBool(true)));
        assertThat(tombstone.transformedItem()).isEmpty();
        assertThat(schema.mapToItem(tombstone.transformedItem())).as("what the enhanced client then hands out").isNull();
    }

    @Test
    void aLiveItemIsLeftAlone() {
        assertThat(read(Map.of("pk", AttributeValue.fromS("a"), "fencing_token", AttributeValue.fromN("6"))).transformedItem())
                .isNull();
        assertThat(read(Map.of("pk", AttributeValue.fromS("a"), "fencing_deleted", AttributeValue.fromBool(false)))
                .transformedItem()).isNull();
    }

    @Test
    void theSdkDefaultsComeFirstAndFencingLast() {
        assertThat(extension.withSdkDefaults()).hasSize(3)
                .satisfies(list -> assertThat(list.get(0)).isInstanceOf(VersionedRecordExtension.class))
                .satisfies(list -> assertThat(list.get(1)).isInstanceOf(AtomicCounterExtension.class))
                .satisfies(list -> assertThat(list.get(2)).isSameAs(extension));
    }

    @Test
    void itTakesTheWrappersSettings() {
        FencedDynamoDb fenced = FencedDynamoDb.builder(Dynamo.client("http://127.0.0.1:1")) // never called
                .tokenAttribute("t").tombstoneAttribute("gone").policy(Policy.STRICT).build();
        FencingTokenExtension mirrored = FencingTokenExtension.of(fenced);
        assertThat(List.of(mirrored.tokenAttribute(), mirrored.tombstoneAttribute())).containsExactly("t", "gone");
        assertThatThrownBy(() -> FencingTokenExtension.create("x", "x", Policy.MONOTONIC))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must differ");
    }
}
