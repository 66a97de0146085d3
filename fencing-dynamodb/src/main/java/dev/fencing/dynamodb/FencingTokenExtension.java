package dev.fencing.dynamodb;

import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClientExtension;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbExtensionContext;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.enhanced.dynamodb.KeyAttributeMetadata;
import software.amazon.awssdk.enhanced.dynamodb.extensions.AtomicCounterExtension;
import software.amazon.awssdk.enhanced.dynamodb.extensions.ReadModification;
import software.amazon.awssdk.enhanced.dynamodb.extensions.VersionedRecordExtension;
import software.amazon.awssdk.enhanced.dynamodb.extensions.WriteModification;
import software.amazon.awssdk.enhanced.dynamodb.update.RemoveAction;
import software.amazon.awssdk.enhanced.dynamodb.update.UpdateExpression;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Fencing for the {@code DynamoDbEnhancedClient}, on the same attributes as {@link FencedDynamoDb}
 * so that the two paths fence each other: a bean attribute annotated {@link DynamoDbFencingToken}
 * (stored as {@code fencing_token}) carries the token of the write, and every
 * {@code putItem}/{@code updateItem} of such a bean is made conditional on
 * {@code attribute_not_exists(token) OR token <= :token} ({@code <} under STRICT), AND-ed by the
 * enhanced client with your own condition and the other extensions'.
 *
 * <pre>{@code
 * FencedDynamoDb fenced = FencedDynamoDb.create(dynamoDb);
 * DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamoDb)
 *         .extensions(FencingTokenExtension.of(fenced).withSdkDefaults())   // keeps versioning and counters
 *         .build();
 * account.setFencingToken(lease.token().value());                           // the token travels with the item
 * accounts.putItem(account);
 * }</pre>
 *
 * <p>What it guarantees, for a table whose schema has a {@link DynamoDbFencingToken} attribute:
 * <ul>
 *   <li>a put or update with a token the stored token (of an item or a tombstone, written by
 *       either path) makes stale fails with the SDK's {@code ConditionalCheckFailedException} —
 *       the enhanced client gives an extension no way to tell it from your own condition failing;
 *       read the item's token to tell, or use {@link FencedDynamoDb}, which does;</li>
 *   <li>an accepted update of a tombstone removes the tombstone marker (a put replaces it);</li>
 *   <li>a write whose bean has no token, a non-integral one, or a schema storing it under another
 *       name than this extension's (and so the wrapper's) fails with
 *       {@link IllegalArgumentException} before any request;</li>
 *   <li>every read through the enhanced client without a projection (get, query, scan, batch
 *       get, transact get, the old item of a put or delete) maps a tombstone to {@code null}, never
 *       to a bean. Not so a query or scan whose {@code attributesToProject} leaves out the
 *       tombstone attribute: the extension sees the item only after the server projected it (the
 *       SDK has no hook to widen a projection), so a tombstone comes back as a key-only bean. Use
 *       {@link FencedTable#query} / {@link FencedTable#scan}, projected or not, which drop
 *       tombstones on the server before the projection, and {@link FencedTable#present} for batch
 *       results.</li>
 * </ul>
 *
 * <p>Not covered, because the SDK calls no extension for them: {@code deleteItem} and batch
 * deletes of the enhanced client erase the item and its mark — delete with
 * {@link FencedTable#deleteItem}, which leaves a tombstone. Batch puts of a fenced bean are
 * refused by the SDK itself ({@code IllegalArgumentException}: a batch put cannot carry a
 * condition); write them with {@link FencedDynamoDb#batchWriteItem}.
 *
 * <p>{@code .extensions(...)} replaces the SDK's default extensions: pass
 * {@link #withSdkDefaults()} to keep {@code @DynamoDbVersionAttribute} and
 * {@code @DynamoDbAtomicCounter} working. Thread-safe.
 */
public final class FencingTokenExtension implements DynamoDbEnhancedClientExtension {

    private final String tokenAttribute;
    private final String tombstoneAttribute;
    private final Policy policy;
    private final TombstoneReads reads;

    private FencingTokenExtension(String tokenAttribute, String tombstoneAttribute, Policy policy) {
        if (tokenAttribute.equals(tombstoneAttribute)) {
            throw new IllegalArgumentException("tokenAttribute and tombstoneAttribute must differ, both are '"
                    + tokenAttribute + "'");
        }
        this.tokenAttribute = tokenAttribute;
        this.tombstoneAttribute = tombstoneAttribute;
        this.policy = policy;
        this.reads = new TombstoneReads(tombstoneAttribute);
    }

    /**
     * With {@link FencedDynamoDb}'s defaults: {@code fencing_token}, {@code fencing_deleted}, {@link Policy#MONOTONIC}.
     *
     * <p>Install it with {@code .extensions(FencingTokenExtension.create().withSdkDefaults())}: on
     * its own, {@code .extensions(...)} replaces the SDK's default extensions, which silently
     * switches {@code @DynamoDbVersionAttribute} checks and atomic counters off.
     */
    public static FencingTokenExtension create() {
        return create(Policy.MONOTONIC);
    }

    /** With {@link FencedDynamoDb}'s default attributes, under {@code policy}. */
    public static FencingTokenExtension create(Policy policy) {
        return create(FencedDynamoDb.DEFAULT_TOKEN_ATTRIBUTE, FencedDynamoDb.DEFAULT_TOMBSTONE_ATTRIBUTE, policy);
    }

    /**
     * With the given attributes and policy, as set on the wrappers' builders
     * ({@code FencedDynamoDb.builder(client).tokenAttribute(...).tombstoneAttribute(...).policy(...)});
     * {@link #of(FencedDynamoDb)} copies them from a wrapper.
     */
    public static FencingTokenExtension create(String tokenAttribute, String tombstoneAttribute, Policy policy) {
        return new FencingTokenExtension(Attributes.requireName("tokenAttribute", tokenAttribute),
                Attributes.requireName("tombstoneAttribute", tombstoneAttribute), Checks.requireNonNull("policy", policy));
    }

    /** With exactly the attributes and policy of {@code fenced}: the way to be sure both paths agree. */
    public static FencingTokenExtension of(FencedDynamoDb fenced) {
        RequestFencer fencer = Checks.requireNonNull("fenced", fenced).fencer();
        return new FencingTokenExtension(fencer.tokenAttribute(), fencer.tombstoneAttribute(), fencer.policy());
    }

    /**
     * The SDK's default extensions ({@link VersionedRecordExtension}, {@link AtomicCounterExtension},
     * as the enhanced client loads them when given none) followed by this one, for
     * {@code DynamoDbEnhancedClient.builder().extensions(...)}. This extension comes last so that
     * it conditions the item as the others leave it and sees each read first.
     */
    public List<DynamoDbEnhancedClientExtension> withSdkDefaults() {
        return List.of(VersionedRecordExtension.builder().build(), AtomicCounterExtension.builder().build(), this);
    }

    /** The attribute this extension expects the token in. */
    public String tokenAttribute() {
        return tokenAttribute;
    }

    /** The attribute marking a tombstone. */
    public String tombstoneAttribute() {
        return tombstoneAttribute;
    }

    @Override
    public WriteModification beforeWrite(DynamoDbExtensionContext.BeforeWrite context) {
        Optional<String> attribute = context.tableMetadata().customMetadataObject(FencingTokenTag.METADATA_KEY, String.class);
        if (attribute.isEmpty()) {
            return WriteModification.builder().build();
        }
        String table = context.operationContext().tableName();
        requireSameAttributes(table, attribute.get(), context);
        AttributeValue token = Marks.number(Marks.requireToken(tokenAttribute, context.items().get(tokenAttribute)));
        String suffix = Integer.toHexString(tokenAttribute.hashCode());
        String nameRef = "#fencing_token_" + suffix;
        String valueRef = ":fencing_token_" + suffix;
        Expression condition = Expression.builder()
                .expression("attribute_not_exists(" + nameRef + ") OR " + nameRef
                        + (policy == Policy.STRICT ? " < " : " <= ") + valueRef)
                .expressionNames(Map.of(nameRef, tokenAttribute))
                .expressionValues(Map.of(valueRef, token))
                .build();
        // Used by updates only (a put replaces the whole item, marker included): an accepted write brings the item back.
        String tombstoneRef = "#fencing_deleted_" + Integer.toHexString(tombstoneAttribute.hashCode());
        UpdateExpression revive = UpdateExpression.builder().addAction(RemoveAction.builder().path(tombstoneRef)
                .putExpressionName(tombstoneRef, tombstoneAttribute).build()).build();
        return WriteModification.builder().additionalConditionalExpression(condition).updateExpression(revive).build();
    }

    @Override
    public ReadModification afterRead(DynamoDbExtensionContext.AfterRead context) {
        if (reads.isTombstone(context.items())) {
            return ReadModification.builder().transformedItem(Map.of()).build(); // maps to no bean: null
        }
        return ReadModification.builder().build();
    }

    private void requireSameAttributes(String table, String schemaAttribute, DynamoDbExtensionContext.BeforeWrite context) {
        if (!schemaAttribute.equals(tokenAttribute)) {
            throw new IllegalArgumentException("the schema of table '" + table + "' keeps its fencing token in '"
                    + schemaAttribute + "', but this FencingTokenExtension (and the FencedDynamoDb it should mirror) uses '"
                    + tokenAttribute + "': the two paths would not see each other's marks. Use one name for both"
                    + " (FencingTokenExtension.of(fenced), and @DynamoDbFencingToken(attributeName = \"" + tokenAttribute
                    + "\") on an attribute of that name)");
        }
        if (context.tableMetadata().keyAttributes().stream().map(KeyAttributeMetadata::name)
                .anyMatch(key -> key.equals(tokenAttribute) || key.equals(tombstoneAttribute))) {
            throw new IllegalArgumentException("the fencing attributes '" + tokenAttribute + "' and '" + tombstoneAttribute
                    + "' must not be key attributes of table '" + table + "'");
        }
        if (context.items().containsKey(tombstoneAttribute)) {
            throw new IllegalArgumentException("the schema of table '" + table + "' maps '" + tombstoneAttribute
                    + "', the attribute that marks a tombstone: a bean must not write it (remove it from the bean, or"
                    + " give FencedDynamoDb and this extension another tombstoneAttribute)");
        }
    }
}
