package dev.fencing.testkit.history;

import dev.fencing.testkit.history.Operation.Outcome;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link HistoryChecker} found in a history.
 *
 * @param history the history checked
 * @param violations the broken promises, empty if none was found
 */
public record CheckResult(History history, List<Violation> violations) {

    private static final int SHOWN = 10;

    /** Copies {@code violations}. */
    public CheckResult {
        violations = List.copyOf(violations);
    }

    /** Whether no violation was found. */
    public boolean passed() {
        return violations.isEmpty();
    }

    /** How many write operations ended each way (reads not counted). */
    public Map<Outcome, Long> writeOutcomes() {
        Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
        for (Outcome outcome : Outcome.values()) {
            counts.put(outcome, 0L);
        }
        history.operations().stream().filter(op -> op.kind().writes())
                .forEach(op -> counts.merge(op.outcome(), 1L, Long::sum));
        return counts;
    }

    /** One line: operations, keys, write outcomes, violations. */
    public String summary() {
        return history.operations().size() + " operations on " + history.byKey().size() + " keys (policy "
                + history.policy() + ", seed " + history.seed() + "), writes " + writeOutcomes() + ": "
                + (passed() ? "no violation" : violations.size() + " violation(s)");
    }

    /**
     * The summary and the first violations, each with the operations that break its rule.
     */
    public String report() {
        StringBuilder text = new StringBuilder(summary());
        violations.stream().limit(SHOWN).forEach(v -> text.append("\n  ").append(v.toString().replace("\n", "\n  ")));
        if (violations.size() > SHOWN) {
            text.append("\n  ... and ").append(violations.size() - SHOWN).append(" more");
        }
        return text.toString();
    }

    /**
     * Throws {@link AssertionError} with {@link #report()} — the seed included, to replay the
     * run — unless the history passed.
     */
    public void assertPassed() {
        if (!passed()) {
            throw new AssertionError(report());
        }
    }
}
