package dev.fencing.propagation;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.internal.SafeListener;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The locks whose tokens may fence a service: a declaration the service makes, so that a caller
 * configured with a misspelled lock (which it then leads alone) is refused instead of fencing
 * nothing. Without one, every caller's configuration is part of the service's safety: a token of
 * any lock passes, and the first token of a new lock name creates its own mark.
 *
 * <pre>{@code
 * AllowedLocks locks = AllowedLocks.builder()
 *         .lock("billing-scheduler")                  // on every path
 *         .forPath("/orders/**", "order-*")           // and order-1, order-2 ... under /orders/
 *         .build();
 * FencingTokenFilter filter = FencingTokenFilter.builder().allowedLocks(locks).requireToken().build();
 * }</pre>
 *
 * <p>A lock pattern is a lock name, in which {@code *} stands for any run of characters. A path
 * pattern is an HTTP request path (from its first {@code /}, without the query) or a gRPC method's
 * full name ({@code package.Service/Method}), in which {@code *} stands for any run of characters
 * but {@code /}, and {@code **} for any run at all. A token is allowed if a rule whose path
 * pattern matches the request names its lock; a path no rule matches allows no token. A refusal is
 * a {@link ForeignTokenException} naming the path as its key and the declared locks as the bound
 * lock (HTTP 409 with {@code Fencing-Refusal: foreign}, gRPC {@code FAILED_PRECONDITION}),
 * logged at WARN (logger {@code dev.fencing.propagation}) and told to the listener's
 * {@code onWriteFailed}, before the handler or any gate runs. Immutable and thread-safe.
 */
public final class AllowedLocks {

    private static final Logger LOG = LoggerFactory.getLogger("dev.fencing.propagation");

    private final List<Rule> rules;

    private AllowedLocks(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** Tokens of the locks {@code lockPatterns} name, on every path. */
    public static AllowedLocks of(String... lockPatterns) {
        if (lockPatterns == null || lockPatterns.length == 0) {
            throw new IllegalArgumentException("name at least one lock (or lock pattern) whose tokens may fence the"
                    + " service; without a declaration, leave allowedLocks unset");
        }
        Builder builder = builder();
        for (String lock : lockPatterns) {
            builder.lock(lock);
        }
        return builder.build();
    }

    /** A builder with no rule yet. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether a token of {@code lock} may fence a request to {@code path}. */
    public boolean allows(String lock, String path) {
        for (Rule rule : rules) {
            if (rule.path.matcher(path).matches() && rule.locks.matcher(lock).matches()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses {@code token} if its lock may not fence {@code path}: logs the refusal at WARN, tells
     * {@code listener}'s {@code onWriteFailed} and throws it.
     *
     * @param where how the refusal names the request, its key (for example {@code PUT /orders/7})
     * @throws ForeignTokenException if the lock is not declared for {@code path}
     */
    public void check(FencingToken token, String path, String where, FencingListener listener) {
        if (allows(token.resource(), path)) {
            return;
        }
        ForeignTokenException refusal = ForeignTokenException.of(where, token, declaredFor(path));
        LOG.warn("refused a token of an undeclared lock: {}", refusal.getMessage());
        SafeListener.of(listener).onWriteFailed(where, refusal);
        throw refusal;
    }

    /** The locks declared for {@code path}, as the refusal names them. */
    String declaredFor(String path) {
        Set<String> names = new LinkedHashSet<>();
        for (Rule rule : rules) {
            if (rule.path.matcher(path).matches()) {
                names.addAll(rule.lockPatterns);
            }
        }
        if (names.isEmpty()) {
            return "(none: no lock is declared for " + path + ")";
        }
        return names.size() == 1 ? names.iterator().next() : "one of " + String.join(", ", names);
    }

    @Override
    public String toString() {
        return rules.stream().map(Rule::toString).collect(Collectors.joining("; ", "AllowedLocks[", "]"));
    }

    private static final class Rule {

        private final String pathPattern;
        private final Pattern path;
        private final List<String> lockPatterns;
        private final Pattern locks;

        Rule(String pathPattern, List<String> lockPatterns) {
            this.pathPattern = pathPattern;
            this.path = pathRegex(pathPattern);
            this.lockPatterns = List.copyOf(lockPatterns);
            this.locks = Pattern.compile(lockPatterns.stream().map(AllowedLocks::lockRegex)
                    .collect(Collectors.joining("|")), Pattern.DOTALL);
        }

        @Override
        public String toString() {
            return pathPattern + " -> " + String.join(", ", lockPatterns);
        }
    }

    private static String lockRegex(String lockPattern) {
        StringBuilder regex = new StringBuilder("(?:");
        int start = 0;
        for (int star = lockPattern.indexOf('*'); star >= 0; star = lockPattern.indexOf('*', start)) {
            regex.append(Pattern.quote(lockPattern.substring(start, star))).append(".*");
            start = star + 1;
        }
        return regex.append(Pattern.quote(lockPattern.substring(start))).append(')').toString();
    }

    private static Pattern pathRegex(String pathPattern) {
        StringBuilder regex = new StringBuilder();
        int i = 0;
        while (i < pathPattern.length()) {
            int star = pathPattern.indexOf('*', i);
            if (star < 0) {
                regex.append(Pattern.quote(pathPattern.substring(i)));
                break;
            }
            regex.append(Pattern.quote(pathPattern.substring(i, star)));
            if (star + 1 < pathPattern.length() && pathPattern.charAt(star + 1) == '*') {
                regex.append(".*");
                i = star + 2;
            } else {
                regex.append("[^/]*");
                i = star + 1;
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    /** Rules of an {@link AllowedLocks}, in any order: a token passes if any rule allows it. */
    public static final class Builder {

        private final List<Rule> rules = new ArrayList<>();

        private Builder() {}

        /** Allows tokens of the locks {@code lockPattern} names on every path. */
        public Builder lock(String lockPattern) {
            return forPath("**", lockPattern);
        }

        /** Allows tokens of the locks {@code lockPatterns} name on the paths {@code pathPattern} matches. */
        public Builder forPath(String pathPattern, String... lockPatterns) {
            if (pathPattern == null || pathPattern.isEmpty()) {
                throw new IllegalArgumentException("pathPattern must be a request path or gRPC method pattern such as"
                        + " '/orders/**' or 'shop.Orders/*', got " + (pathPattern == null ? "null" : "''"));
            }
            if (lockPatterns == null || lockPatterns.length == 0) {
                throw new IllegalArgumentException("name at least one lock (or lock pattern) for '" + pathPattern + "'");
            }
            for (String lock : lockPatterns) {
                if (lock == null || lock.isBlank()) {
                    throw new IllegalArgumentException("a lock pattern for '" + pathPattern + "' must be a lock name,"
                            + " with * for any run of characters, got " + (lock == null ? "null" : "'" + lock + "'"));
                }
                if (lock.chars().allMatch(c -> c == '*')) {
                    throw new IllegalArgumentException("the lock pattern '" + lock + "' for '" + pathPattern
                            + "' allows every lock, which declares nothing; name the locks, or leave allowedLocks unset");
                }
            }
            rules.add(new Rule(pathPattern, List.of(lockPatterns)));
            return this;
        }

        /**
         * The declaration.
         *
         * @throws IllegalStateException if no rule was added
         */
        public AllowedLocks build() {
            if (rules.isEmpty()) {
                throw new IllegalStateException("an AllowedLocks needs at least one rule: lock(...) or forPath(...)");
            }
            return new AllowedLocks(rules);
        }
    }
}
