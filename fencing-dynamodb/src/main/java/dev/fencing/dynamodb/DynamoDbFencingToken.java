package dev.fencing.dynamodb;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.BeanTableSchemaAttributeTag;

/**
 * Marks a bean's {@code Long} attribute as its fencing token, for {@link FencingTokenExtension}:
 * set it to the lease's token before {@code putItem}/{@code updateItem}, and the write is
 * conditional on the stored token. Put it on the getter, like {@code @DynamoDbVersionAttribute}.
 *
 * <p>The token must live in the same attribute that {@link FencedDynamoDb} uses, or the two paths
 * would not see each other's marks and tombstones. So the attribute must be named
 * {@link #attributeName()} ({@code fencing_token} by default, {@link FencedDynamoDb}'s default):
 * name it with {@code @DynamoDbAttribute("fencing_token")}. Any other name is refused when the
 * table schema is built ({@code TableSchema.fromBean}), with an {@link IllegalArgumentException}.
 *
 * <pre>{@code
 * @DynamoDbFencingToken
 * @DynamoDbAttribute("fencing_token")
 * public Long getFencingToken() { return fencingToken; }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@BeanTableSchemaAttributeTag(FencingTokenTag.class)
public @interface DynamoDbFencingToken {

    /**
     * The attribute the token is stored in, as configured on the low-level wrapper
     * ({@code FencedDynamoDb.builder(client).tokenAttribute(...)}); the bean's attribute must
     * have exactly this name.
     */
    String attributeName() default FencedDynamoDb.DEFAULT_TOKEN_ATTRIBUTE;
}
