package dev.fencing.dynamodb;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Token numbers, read and written exactly. A DynamoDB number is a decimal of up to 38 digits that
 * the server compares exactly; nothing here goes through {@code double}, which would make tokens
 * above 2^53 collide.
 */
final class Marks {

    private static final Pattern TOKEN = Pattern.compile("[1-9][0-9]{0,18}");
    private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal MIN = BigDecimal.valueOf(Long.MIN_VALUE);

    private Marks() {}

    /**
     * The stored mark as the smallest long at least as large as it (a mark written by another
     * client may be a decimal such as {@code 6.5} or {@code 7E0}), saturated at the long range: a
     * token is refused by the server exactly when the policy refuses it against this value.
     */
    static OptionalLong of(@Nullable AttributeValue stored) {
        if (stored == null || stored.n() == null) {
            return OptionalLong.empty();
        }
        BigDecimal ceiling;
        try {
            ceiling = new BigDecimal(stored.n()).setScale(0, RoundingMode.CEILING);
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
        if (ceiling.compareTo(MAX) > 0) {
            return OptionalLong.of(Long.MAX_VALUE);
        }
        return OptionalLong.of(ceiling.compareTo(MIN) < 0 ? Long.MIN_VALUE : ceiling.longValueExact());
    }

    /**
     * The token a bean carries, which must be a positive whole number written as a {@code Long}
     * writes it: {@code 5.0} or {@code 5E0} (a {@code Double} property) is refused, since a double
     * cannot tell 2^53 from 2^53 + 1.
     */
    static long requireToken(String attribute, @Nullable AttributeValue value) {
        String text = value == null ? null : value.n();
        if (text != null && TOKEN.matcher(text).matches()) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException tooLarge) {
                // falls through to the refusal
            }
        }
        throw new IllegalArgumentException("the fencing token attribute '" + attribute + "' must be set to the lease's"
                + " token (a positive whole number from 1 to " + Long.MAX_VALUE + ", held in a Long) before writing, got "
                + (value == null ? "nothing" : text != null ? text : value.toString()));
    }

    static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
