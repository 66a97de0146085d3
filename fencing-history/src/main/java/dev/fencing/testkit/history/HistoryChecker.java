package dev.fencing.testkit.history;

import dev.fencing.core.Policy;
import dev.fencing.testkit.history.Operation.Kind;
import dev.fencing.testkit.history.Operation.Outcome;
import dev.fencing.testkit.history.Violation.Rule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * Checks a {@link History} against what a fenced store promises, key by key, using only the
 * real-time order of operations: {@code a} is before {@code b} when {@code a} returned before
 * {@code b} was invoked. Operations whose reply was lost ({@link Outcome#UNKNOWN}) may have taken
 * effect at any time after their invocation; they never count as "before" anything, but may
 * explain what a later read saw.
 *
 * <p>The rules ({@link Rule}), per key:
 * <ol>
 *   <li>an accepted write's token is accepted by the policy against every token accepted by a
 *       write that returned before it started — the mark never goes backwards;
 *   <li>a refusal names a mark some write presented, a mark that refuses its token, and not one
 *       behind a token accepted before the refusal started;
 *   <li>a mark read is a token some write presented, and never below a token accepted or a mark
 *       seen (read, or named by a refusal) before the read started;
 *   <li>a read returns a value some write wrote with exactly that token and that was not replaced
 *       (written over, deleted) by an accepted write that returned before the read started; an
 *       accepted write's value does not vanish without a delete at least as new that had not
 *       returned before the write started (so a re-create after a delete of the same token stays);
 *   <li>on a key only incremented through {@code update}, accepted increments return distinct
 *       values and a read after the last one sees between the accepted count and the accepted
 *       plus unclear count — nothing lost, nothing applied twice.
 * </ol>
 * The check is sound (every violation it reports is a real one, given the clock the history was
 * recorded with) but not complete: it looks at pairs and triples of operations, not at every
 * linearization. Each pair, sorting included, costs O(n log n) per key.
 */
public final class HistoryChecker {

    private HistoryChecker() {}

    /** Checks {@code history}; never throws for a well-formed history, however broken the store. */
    public static CheckResult check(History history) {
        List<Violation> violations = new ArrayList<>();
        history.byKey().forEach((key, ops) -> new KeyCheck(history.policy(), key, ops, violations).run());
        return new CheckResult(history, violations);
    }

    private static final class KeyCheck {
        private final Policy policy;
        private final String key;
        private final List<Operation> ops;
        private final List<Violation> violations;
        private final Latest accepted;
        private final Latest acceptedValues;
        private final Latest observedMarks;

        KeyCheck(Policy policy, String key, List<Operation> ops, List<Violation> violations) {
            this.policy = policy;
            this.key = key;
            this.ops = ops;
            this.violations = violations;
            this.accepted = new Latest(ops.stream().filter(Operation::accepted).toList(), Operation::token);
            this.acceptedValues = new Latest(ops.stream().filter(op -> op.accepted() && op.kind() != Kind.DELETE)
                    .toList(), Operation::token);
            // A value read with token t proves the mark had reached t: it was accepted against it.
            this.observedMarks = new Latest(ops.stream().filter(op -> op.outcome() == Outcome.STALE
                    || op.outcome() == Outcome.OK && (op.kind() == Kind.MARK || op.kind() == Kind.READ)).toList(),
                    Operation::observedToken);
        }

        void run() {
            for (Operation op : ops) {
                if (op.accepted()) {
                    checkAccepted(op);
                } else if (op.kind().writes() && op.outcome() == Outcome.STALE) {
                    checkRefusal(op);
                } else if (op.kind() == Kind.MARK && op.outcome() == Outcome.OK) {
                    checkMarkRead(op);
                } else if (op.kind() == Kind.READ && op.outcome() == Outcome.OK) {
                    checkRead(op);
                }
            }
            if (ops.stream().anyMatch(op -> op.kind() == Kind.INCREMENT)
                    && ops.stream().filter(op -> op.kind().writes()).allMatch(op -> op.kind() == Kind.INCREMENT)) {
                checkIncrements();
            }
        }

        private void checkAccepted(Operation write) {
            Operation before = accepted.before(write.invokedNanos());
            if (before != null && !policy.accepts(write.token(), before.token())) {
                report(Rule.STALE_WRITE_ACCEPTED, "token " + write.token() + " was accepted after token "
                        + before.token() + " had been (policy " + policy + ")", before, write);
            }
        }

        private void checkRefusal(Operation refusal) {
            long mark = refusal.observedToken();
            if (policy.accepts(refusal.token(), mark)) {
                report(Rule.REFUSAL_MARK_WRONG, "token " + refusal.token() + " was refused naming mark " + mark
                        + ", which accepts it (policy " + policy + ")", refusal);
            }
            if (!presentedBefore(mark, refusal.completedNanos())) {
                report(Rule.REFUSAL_MARK_WRONG, "the refusal named mark " + mark
                        + ", a token no write presented before the refusal returned", refusal);
            }
            Operation before = accepted.before(refusal.invokedNanos());
            if (before != null && before.token() > mark) {
                report(Rule.REFUSAL_MARK_WRONG, "the refusal named mark " + mark + " although token "
                        + before.token() + " had been accepted before it started", before, refusal);
            }
            Operation seen = observedMarks.before(refusal.invokedNanos());
            if (seen != null && seen.observedToken() > mark) {
                report(Rule.MARK_WENT_BACKWARDS, "the refusal named mark " + mark + " after mark "
                        + seen.observedToken() + " had been seen", seen, refusal);
            }
        }

        private void checkMarkRead(Operation read) {
            long mark = read.observedToken();
            Operation before = accepted.before(read.invokedNanos());
            if (before != null && before.token() > mark) {
                report(Rule.MARK_WENT_BACKWARDS, "mark " + (mark == 0 ? "(none)" : mark) + " was read after token "
                        + before.token() + " had been accepted", before, read);
            }
            Operation seen = observedMarks.before(read.invokedNanos());
            if (seen != null && seen.observedToken() > mark) {
                report(Rule.MARK_WENT_BACKWARDS, "mark " + (mark == 0 ? "(none)" : mark) + " was read after mark "
                        + seen.observedToken() + " had been seen", seen, read);
            }
            if (mark != 0 && !presentedBefore(mark, read.completedNanos())) {
                report(Rule.MARK_NOBODY_WROTE, "mark " + mark + " is a token no write presented before the read"
                        + " returned", read);
            }
        }

        private void checkRead(Operation read) {
            if (read.observed() == null) {
                checkEmptyRead(read);
                return;
            }
            long token = read.observedToken();
            Operation newer = accepted.before(read.invokedNanos());
            if (newer != null && newer.token() > token) {
                report(Rule.STALE_OR_UNWRITTEN_READ, "read '" + read.observed() + "' with token " + token
                        + " after token " + newer.token() + " had been accepted", newer, read);
                return;
            }
            List<Operation> writers = ops.stream()
                    .filter(op -> op.mayHaveTakenEffect() && op.kind() != Kind.DELETE && op.token() == token
                            && Objects.equals(op.value(), read.observed()) && op.invokedNanos() < read.completedNanos())
                    .toList();
            if (writers.isEmpty()) {
                report(Rule.STALE_OR_UNWRITTEN_READ, "read '" + read.observed() + "' with token " + token
                        + ", which no write wrote with that token before the read returned", read);
                return;
            }
            Operation firstWriter = null;
            Operation firstReplacement = null;
            for (Operation writer : writers) {
                Operation replacement = replacement(writer, read);
                if (replacement == null) {
                    return;
                }
                if (firstWriter == null) {
                    firstWriter = writer;
                    firstReplacement = replacement;
                }
            }
            Operation writer = Objects.requireNonNull(firstWriter, "set in the first round: writers is not empty");
            Operation replaced = Objects.requireNonNull(firstReplacement, "set with firstWriter");
            report(Rule.STALE_OR_UNWRITTEN_READ, "read '" + read.observed() + "' with token " + token
                    + ", which an accepted " + replaced.kind() + " with token " + replaced.token()
                    + " had replaced before the read started", writer, replaced, read);
        }

        /** An accepted write after {@code writer} and before {@code read} that replaced its value. */
        private @Nullable Operation replacement(Operation writer, Operation read) {
            for (Operation op : ops) {
                if (op != writer && op.accepted() && writer.precedes(op) && op.precedes(read)
                        && op.token() >= writer.token()
                        && !(op.kind() != Kind.DELETE && Objects.equals(op.value(), writer.value())
                                && op.token() == writer.token())) {
                    return op;
                }
            }
            return null;
        }

        private void checkEmptyRead(Operation read) {
            Operation written = acceptedValues.before(read.invokedNanos());
            if (written == null) {
                return;
            }
            boolean deleted = ops.stream().anyMatch(op -> op.kind() == Kind.DELETE && op.mayHaveTakenEffect()
                    && op.token() >= written.token() && !op.precedes(written)
                    && op.invokedNanos() < read.completedNanos());
            if (!deleted) {
                report(Rule.ACCEPTED_WRITE_VANISHED, "read nothing after '" + written.value() + "' was written with"
                        + " token " + written.token() + " and no delete with that token or newer ran", written, read);
            }
        }

        private void checkIncrements() {
            List<Operation> increments = ops.stream().filter(op -> op.kind() == Kind.INCREMENT).toList();
            long acceptedCount = increments.stream().filter(Operation::accepted).count();
            long unclearCount = increments.stream().filter(op -> op.outcome() == Outcome.UNKNOWN).count();
            Map<String, Operation> byValue = new HashMap<>();
            for (Operation op : increments) {
                if (op.accepted()) {
                    Operation same = byValue.putIfAbsent(op.value(), op);
                    if (same != null) {
                        report(Rule.INCREMENT_LOST_OR_DOUBLED, "two accepted increments both returned '" + op.value()
                                + "': one of them was computed from a value the other had replaced", same, op);
                    }
                }
            }
            long lastInvoked = increments.stream().mapToLong(Operation::invokedNanos).max().orElse(0);
            long lastReturned = increments.stream().filter(Operation::accepted).mapToLong(Operation::completedNanos)
                    .max().orElse(0);
            for (Operation read : ops) {
                if (read.kind() != Kind.READ || read.outcome() != Outcome.OK) {
                    continue;
                }
                long count = read.observed() == null ? 0 : parseCount(read.observed());
                boolean afterAll = read.invokedNanos() > lastReturned && read.invokedNanos() > lastInvoked;
                if (count > acceptedCount + unclearCount || count < 0 || (afterAll && count < acceptedCount)) {
                    report(Rule.INCREMENT_LOST_OR_DOUBLED, "read count " + read.observed() + " " + (afterAll
                            ? "after" : "during") + " " + acceptedCount + " accepted and " + unclearCount
                            + " unclear increments", read);
                }
            }
        }

        private static long parseCount(String value) {
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        private boolean presentedBefore(long token, long nanos) {
            return ops.stream().anyMatch(op -> op.mayHaveTakenEffect() && op.token() == token
                    && op.invokedNanos() < nanos);
        }

        private void report(Rule rule, String explanation, Operation... involved) {
            violations.add(new Violation(rule, key, explanation, Arrays.asList(involved)));
        }
    }

    /**
     * Among some operations that returned (none with an unknown outcome), the one with the highest
     * value that returned before a given time: sorted by completion, with a running maximum, so each
     * question is a binary search. Among equal values the one invoked last wins: it is the hardest to
     * explain away (a delete of the same token that returned before it was invoked cannot have
     * removed it), so a store that drops a re-create after its own delete of the same token is
     * reported.
     */
    private static final class Latest {
        private final long[] completed;
        private final Operation[] highest;

        Latest(List<Operation> candidates, ToLongFunction<Operation> value) {
            List<Operation> sorted = candidates.stream().sorted(Comparator.comparingLong(Operation::completedNanos)).toList();
            completed = new long[sorted.size()];
            highest = new Operation[sorted.size()];
            Operation max = null;
            for (int i = 0; i < sorted.size(); i++) {
                Operation op = sorted.get(i);
                if (max == null || value.applyAsLong(op) > value.applyAsLong(max)
                        || (value.applyAsLong(op) == value.applyAsLong(max) && op.invokedNanos() > max.invokedNanos())) {
                    max = op;
                }
                completed[i] = op.completedNanos();
                highest[i] = max;
            }
        }

        /** The highest among those that returned strictly before {@code nanos}, or null. */
        @Nullable
        Operation before(long nanos) {
            int index = Arrays.binarySearch(completed, nanos);
            int count = index >= 0 ? lowerBound(index) : -index - 1;
            return count == 0 ? null : highest[count - 1];
        }

        private int lowerBound(int index) {
            while (index > 0 && completed[index - 1] == completed[index]) {
                index--;
            }
            return index;
        }
    }
}
