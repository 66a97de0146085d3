package dev.fencing.dynamodb;

import java.util.function.Consumer;
import software.amazon.awssdk.enhanced.dynamodb.AttributeValueType;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTag;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticTableMetadata;

/**
 * The table-metadata tag behind {@link DynamoDbFencingToken}; for a {@code StaticTableSchema} use
 * {@link #fencingToken()} as the attribute's tag.
 */
public final class FencingTokenTag implements StaticAttributeTag {

    static final String METADATA_KEY = "dev.fencing:FencingTokenAttribute";
    private static final FencingTokenTag INSTANCE = new FencingTokenTag();

    private FencingTokenTag() {}

    /** The tag for a {@code StaticTableSchema} attribute. */
    public static StaticAttributeTag fencingToken() {
        return INSTANCE;
    }

    /** Called by the bean schema for {@link DynamoDbFencingToken}. */
    public static StaticAttributeTag attributeTagFor(DynamoDbFencingToken annotation) {
        return INSTANCE;
    }

    @Override
    public Consumer<StaticTableMetadata.Builder> modifyMetadata(String attributeName, AttributeValueType type) {
        if (type != AttributeValueType.N) {
            throw new IllegalArgumentException("the fencing token attribute '" + attributeName + "' must be a number (N),"
                    + " got " + type);
        }
        return metadata -> metadata.addCustomMetadataObject(METADATA_KEY, attributeName);
    }
}
