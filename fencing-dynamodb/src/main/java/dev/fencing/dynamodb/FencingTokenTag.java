package dev.fencing.dynamodb;

import java.util.function.Consumer;
import software.amazon.awssdk.enhanced.dynamodb.AttributeValueType;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTag;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticTableMetadata;

/**
 * The table-metadata tag behind {@link DynamoDbFencingToken}; for a {@code StaticTableSchema} use
 * {@link #fencingToken()} (or {@link #fencingToken(String)}) as the attribute's tag. It refuses,
 * when the schema is built, an attribute that is not a number or not named as the low-level
 * wrapper's token attribute.
 */
public final class FencingTokenTag implements StaticAttributeTag {

    static final String METADATA_KEY = "dev.fencing:FencingTokenAttribute";
    private static final FencingTokenTag DEFAULT = new FencingTokenTag(FencedDynamoDb.DEFAULT_TOKEN_ATTRIBUTE);

    private final String expectedName;

    private FencingTokenTag(String expectedName) {
        this.expectedName = expectedName;
    }

    /** The tag for a {@code StaticTableSchema} attribute named {@code fencing_token}. */
    public static StaticAttributeTag fencingToken() {
        return DEFAULT;
    }

    /** The tag for a {@code StaticTableSchema} attribute named {@code attributeName}, the wrapper's token attribute. */
    public static StaticAttributeTag fencingToken(String attributeName) {
        return new FencingTokenTag(Attributes.requireName("attributeName", attributeName));
    }

    /** Called by the bean schema for {@link DynamoDbFencingToken}. */
    public static StaticAttributeTag attributeTagFor(DynamoDbFencingToken annotation) {
        return fencingToken(annotation.attributeName());
    }

    @Override
    public Consumer<StaticTableMetadata.Builder> modifyMetadata(String attributeName, AttributeValueType type) {
        if (type != AttributeValueType.N) {
            throw new IllegalArgumentException("the fencing token attribute '" + attributeName + "' must be a number (N),"
                    + " got " + type);
        }
        if (!attributeName.equals(expectedName)) {
            throw new IllegalArgumentException("the fencing token attribute is named '" + attributeName + "', but the"
                    + " low-level FencedDynamoDb keeps the token in '" + expectedName + "': the two paths would not see"
                    + " each other's marks, and a zombie could re-create an item deleted through the other path. Name"
                    + " the attribute '" + expectedName + "' (@DynamoDbAttribute(\"" + expectedName + "\") on the getter),"
                    + " or, if the wrapper is configured with tokenAttribute(\"" + attributeName + "\"), say so with"
                    + " @DynamoDbFencingToken(attributeName = \"" + attributeName + "\")");
        }
        return metadata -> metadata.addCustomMetadataObject(METADATA_KEY, attributeName);
    }
}
