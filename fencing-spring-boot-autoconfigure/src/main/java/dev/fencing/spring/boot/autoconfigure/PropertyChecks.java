package dev.fencing.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Applies a property's value to a toolkit builder and, when the builder refuses it, throws again
 * with the property's name, so the failure says which line of the configuration to fix.
 */
final class PropertyChecks {

    private PropertyChecks() {}

    /**
     * Passes {@code value} to {@code setter}.
     *
     * @throws IllegalArgumentException naming {@code property} and {@code value}, with the
     *     builder's own explanation, if the builder refused it
     */
    static <T> void apply(String property, T value, Consumer<T> setter) {
        try {
            setter.accept(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + " = '" + value + "' is not allowed: " + e.getMessage(), e);
        }
    }

    /**
     * {@code value}, which must be set for {@code type}.
     *
     * @throws IllegalArgumentException naming the property and the form expected
     */
    static String require(String property, @Nullable String value, String type, String form) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(property + " must be set for " + LockType.PROPERTY + "=" + type
                    + " (" + form + ")");
        }
        return value.strip();
    }

    /**
     * {@code value}, which must lie between {@code min} and {@code max}.
     *
     * @throws IllegalArgumentException naming the property, the value and the range
     */
    static Duration requireBetween(String property, Duration value, Duration min, Duration max) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(property + " must be between " + min + " and " + max + ", got "
                    + value);
        }
        return value;
    }
}
