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
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@BeanTableSchemaAttributeTag(FencingTokenTag.class)
public @interface DynamoDbFencingToken {
}
