package dev.fencing.dynamodb;

import java.util.Collection;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Picks expression placeholders ({@code #name}, {@code :value}) that cannot collide with the
 * caller's: not a key of the caller's maps, and not appearing as a placeholder in any of the
 * caller's expressions.
 */
final class Placeholders {

    private Placeholders() {}

    /** {@code base} (e.g. {@code #fencing_token}), or {@code base_1}, {@code base_2}... the first one free. */
    static String free(String base, Map<String, ?> taken, Collection<String> expressions) {
        for (int suffix = 0; ; suffix++) {
            String candidate = suffix == 0 ? base : base + "_" + suffix;
            if (!taken.containsKey(candidate) && expressions.stream().noneMatch(e -> mentions(e, candidate))) {
                return candidate;
            }
        }
    }

    /** Whether {@code expression} uses {@code placeholder} as a whole token (not as a prefix of a longer one). */
    static boolean mentions(String expression, String placeholder) {
        return expression != null
                && Pattern.compile(Pattern.quote(placeholder) + "(?![A-Za-z0-9_])").matcher(expression).find();
    }
}
