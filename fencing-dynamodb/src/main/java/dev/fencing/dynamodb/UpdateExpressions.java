package dev.fencing.dynamodb;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Adds actions to a caller's {@code UpdateExpression}, whose clauses ({@code SET}, {@code REMOVE},
 * {@code ADD}, {@code DELETE}) may each appear once, in any order. Clause keywords are reserved
 * words, so an attribute of that name must be a {@code #placeholder}: a bare keyword is a clause.
 */
final class UpdateExpressions {

    private static final Pattern CLAUSE = Pattern.compile("(?i)(?<![A-Za-z0-9_#:])(SET|REMOVE|ADD|DELETE)(?![A-Za-z0-9_])");

    private UpdateExpressions() {}

    /** {@code expression} with {@code action} (e.g. {@code #t = :t}) added to its SET clause, created if absent. */
    static String addSet(String expression, String action) {
        return addTo(expression, "SET", action);
    }

    /** {@code expression} with {@code attribute} added to its REMOVE clause, created if absent. */
    static String addRemove(String expression, String attribute) {
        return addTo(expression, "REMOVE", attribute);
    }

    private static String addTo(String expression, String clause, String action) {
        if (expression == null || expression.isBlank()) {
            return clause + " " + action;
        }
        Matcher matcher = CLAUSE.matcher(expression);
        while (matcher.find()) {
            if (matcher.group(1).toUpperCase(Locale.ROOT).equals(clause)) {
                return expression.substring(0, matcher.end()) + " " + action + ","
                        + expression.substring(matcher.end());
            }
        }
        return expression + " " + clause + " " + action;
    }
}
