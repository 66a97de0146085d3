package dev.fencing.dynamodb;

import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClientExtension;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbExtensionContext;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.enhanced.dynamodb.extensions.WriteModification;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Fencing for the {@code DynamoDbEnhancedClient}, in the spirit of the SDK's
 * {@code VersionedRecordExtension}: a bean attribute annotated {@link DynamoDbFencingToken}
 * carries the token of the write, and every {@code putItem}/{@code updateItem} of such a bean is
 * made conditional on {@code attribute_not_exists(token) OR token <= :token} ({@code <} under
 * STRICT), AND-ed by the enhanced client with your own condition.
 *
 * <pre>{@code
 * DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamoDb)
 *         .extensions(ExtensionResolver.defaultExtensions().get(0), FencingTokenExtension.create())
 *         .build();
 * account.setFencingToken(lease.token().value());   // the token travels with the item
 * accounts.putItem(account);
 * }</pre>
 *
 * <p>A write whose bean has no token fails with {@link IllegalArgumentException} before any
 * request. A refused write throws the SDK's {@code ConditionalCheckFailedException}: the enhanced
 * client gives the extension no chance to tell a stale token from your own condition — read the
 * item's token to tell, or use {@link FencedDynamoDb}, which does. Enhanced-client deletes are
 * not fenced and erase the mark: delete with {@link FencedDynamoDb#deleteItem} (a tombstone).
 */
public final class FencingTokenExtension implements DynamoDbEnhancedClientExtension {

    private final Policy policy;

    private FencingTokenExtension(Policy policy) {
        this.policy = policy;
    }

    /** Under {@link Policy#MONOTONIC}. */
    public static FencingTokenExtension create() {
        return new FencingTokenExtension(Policy.MONOTONIC);
    }

    /** Under {@code policy}. */
    public static FencingTokenExtension create(Policy policy) {
        return new FencingTokenExtension(Checks.requireNonNull("policy", policy));
    }

    @Override
    public WriteModification beforeWrite(DynamoDbExtensionContext.BeforeWrite context) {
        Optional<String> attribute = context.tableMetadata().customMetadataObject(FencingTokenTag.METADATA_KEY, String.class);
        if (attribute.isEmpty()) {
            return WriteModification.builder().build();
        }
        String name = attribute.get();
        AttributeValue token = context.items().get(name);
        if (token == null || token.n() == null || Long.parseLong(token.n()) < 1) {
            throw new IllegalArgumentException("the fencing token attribute '" + name + "' of this "
                    + context.tableMetadata().primaryPartitionKey() + "-keyed item must be set to the lease's token"
                    + " (a positive number) before writing, got " + (token == null ? "nothing" : token));
        }
        String nameRef = "#fencing_token_" + Integer.toHexString(name.hashCode());
        String valueRef = ":fencing_token_" + Integer.toHexString(name.hashCode());
        Expression condition = Expression.builder()
                .expression("attribute_not_exists(" + nameRef + ") OR " + nameRef
                        + (policy == Policy.STRICT ? " < " : " <= ") + valueRef)
                .expressionNames(Map.of(nameRef, name))
                .expressionValues(Map.of(valueRef, token))
                .build();
        return WriteModification.builder().additionalConditionalExpression(condition).build();
    }
}
