package dev.fencing.spring.boot.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code fencing.lock.type} names {@link #value()}, read as {@link LockType#of} reads
 * it (case and surrounding blanks ignored): {@code @ConditionalOnProperty(havingValue = ...)}
 * compares the raw text, so {@code postgres } with a trailing blank would create no provider and the
 * start would fail for an unrelated reason. An unknown value matches no type; the check
 * configuration then fails the start naming the allowed values.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Documented
@Conditional(ConditionalOnLockType.OnLockType.class)
@interface ConditionalOnLockType {

    /** The lock type the annotated configuration creates. */
    LockType value();

    /** The condition behind {@link ConditionalOnLockType}. */
    final class OnLockType extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Map<String, Object> attributes = Objects.requireNonNull(
                    metadata.getAnnotationAttributes(ConditionalOnLockType.class.getName()), "annotated");
            LockType wanted = (LockType) Objects.requireNonNull(attributes.get("value"), "value");
            String value = context.getEnvironment().getProperty(LockType.PROPERTY);
            if (value == null || value.isBlank()) {
                return ConditionOutcome.noMatch(LockType.PROPERTY + " is not set");
            }
            LockType named;
            try {
                named = LockType.of(value);
            } catch (IllegalArgumentException unknown) {
                return ConditionOutcome.noMatch(String.valueOf(unknown.getMessage()));
            }
            return named == wanted ? ConditionOutcome.match(LockType.PROPERTY + " is '" + value + "'")
                    : ConditionOutcome.noMatch(LockType.PROPERTY + " is '" + value + "', not " + wanted.value());
        }
    }
}
