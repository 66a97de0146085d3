package dev.fencing.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Policy;
import dev.fencing.testkit.history.Operation.Kind;
import dev.fencing.testkit.history.Operation.Outcome;
import dev.fencing.testkit.history.Violation.Rule;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The checker's rules at the edges of real-time order: an operation invoked at the very nanosecond
 * another returned is concurrent with it, not after it; ties among equal tokens; and which
 * operations count as having seen a mark. Every history is written with explicit times.
 */
class HistoryCheckerBoundariesTest {

    private final List<Operation> ops = new ArrayList<>();

    private HistoryCheckerBoundariesTest op(Kind kind, long token, @Nullable String value, Outcome outcome,
            @Nullable String observed, long observedToken, long invoked, long completed) {
        ops.add(new Operation(0, 0, "k", kind, token, value, outcome, observed, observedToken, invoked, completed,
                outcome == Outcome.UNKNOWN ? "SocketTimeoutException: read timed out" : null));
        return this;
    }

    private HistoryCheckerBoundariesTest write(long token, String value, long invoked, long completed) {
        return op(Kind.WRITE, token, value, Outcome.OK, null, 0, invoked, completed);
    }

    private HistoryCheckerBoundariesTest lostWrite(long token, String value, long invoked, long completed) {
        return op(Kind.WRITE, token, value, Outcome.UNKNOWN, null, 0, invoked, completed);
    }

    private HistoryCheckerBoundariesTest delete(long token, long invoked, long completed) {
        return op(Kind.DELETE, token, null, Outcome.OK, null, 0, invoked, completed);
    }

    private HistoryCheckerBoundariesTest refused(long token, long mark, long invoked, long completed) {
        return op(Kind.WRITE, token, null, Outcome.STALE, null, mark, invoked, completed);
    }

    private HistoryCheckerBoundariesTest read(@Nullable String value, long token, long invoked, long completed) {
        return op(Kind.READ, 0, null, Outcome.OK, value, token, invoked, completed);
    }

    private HistoryCheckerBoundariesTest mark(long mark, long invoked, long completed) {
        return op(Kind.MARK, 0, null, Outcome.OK, null, mark, invoked, completed);
    }

    private HistoryCheckerBoundariesTest increment(long token, String result, long invoked, long completed) {
        return op(Kind.INCREMENT, token, result, Outcome.OK, null, token, invoked, completed);
    }

    private List<Violation> violations(Policy policy) {
        return HistoryChecker.check(new History(policy, 7, ops)).violations();
    }

    private List<Rule> rules() {
        return violations(Policy.MONOTONIC).stream().map(Violation::rule).toList();
    }

    @Test
    void aWriteInvokedAtTheNanosecondTheNewerOneReturnedIsConcurrentWithIt() {
        write(9, "new", 10, 20).write(5, "old", 20, 30);
        assertThat(rules()).isEmpty();

        ops.clear();
        write(9, "new", 10, 20).write(5, "old", 21, 30);
        assertThat(rules()).containsExactly(Rule.STALE_WRITE_ACCEPTED);
    }

    @Test
    void aWriteInvokedExactlyWhenALaterOperationReturnedIsJudgedAgainstEverythingBefore() {
        // completions 20, 30, 30: the stale write is invoked at 30, so only the write done at 20 is before it
        write(9, "new", 10, 20).write(9, "again", 25, 30).write(10, "newer", 26, 30).write(5, "old", 30, 40);
        assertThat(violations(Policy.MONOTONIC)).singleElement().satisfies(v -> {
            assertThat(v.rule()).isEqualTo(Rule.STALE_WRITE_ACCEPTED);
            assertThat(v.explanation()).contains("token 5 was accepted after token 9");
        });

        ops.clear();
        write(9, "again", 25, 30).write(10, "newer", 26, 30).write(5, "old", 30, 40);
        assertThat(rules()).as("the two writes done at 30 are concurrent with one invoked at 30").isEmpty();
    }

    @Test
    void aReadCannotSeeAValueWhoseWriteStartedAsTheReadReturned() {
        write(5, "a", 10, 20).read("b", 5, 30, 40).write(5, "b", 40, 50);
        assertThat(rules()).containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        write(5, "a", 10, 20).read("b", 5, 30, 40).write(5, "b", 39, 50);
        assertThat(rules()).isEmpty();
    }

    @Test
    void aMarkNobodyPresentedBeforeTheReadReturnedIsReportedEvenIfPresentedAtThatInstant() {
        mark(9, 10, 20).write(9, "a", 20, 30);
        assertThat(rules()).containsExactly(Rule.MARK_NOBODY_WROTE);

        ops.clear();
        mark(9, 10, 20).write(9, "a", 19, 30);
        assertThat(rules()).isEmpty();
    }

    @Test
    void aDeleteInvokedAsAnEmptyReadReturnedCannotExplainIt() {
        write(5, "a", 10, 20).read(null, 0, 30, 40).delete(5, 40, 50);
        assertThat(rules()).containsExactly(Rule.ACCEPTED_WRITE_VANISHED);

        ops.clear();
        write(5, "a", 10, 20).read(null, 0, 30, 40).delete(5, 39, 50);
        assertThat(rules()).isEmpty();
    }

    @Test
    void aMarkReadOfNoneBehindAnAcceptedTokenSaysNone() {
        write(5, "a", 10, 20).mark(0, 30, 40);
        assertThat(violations(Policy.MONOTONIC)).singleElement()
                .satisfies(v -> assertThat(v.explanation()).startsWith("mark (none) was read after token 5"));

        ops.clear();
        write(5, "a", 10, 20).mark(4, 30, 40);
        assertThat(violations(Policy.MONOTONIC)).extracting(Violation::explanation)
                .anySatisfy(e -> assertThat(e).startsWith("mark 4 was read after token 5"));
    }

    @Test
    void aRefusalNamingAMarkBehindOneAlreadySeenIsReported() {
        // token 7's reply was lost, but a mark read showed it had landed
        write(5, "a", 10, 20).lostWrite(7, "b", 30, 40).mark(7, 50, 60).refused(3, 5, 70, 80);
        assertThat(violations(Policy.MONOTONIC)).singleElement().satisfies(v -> {
            assertThat(v.rule()).isEqualTo(Rule.MARK_WENT_BACKWARDS);
            assertThat(v.explanation()).isEqualTo("the refusal named mark 5 after mark 7 had been seen");
        });

        ops.clear();
        write(5, "a", 10, 20).lostWrite(7, "b", 30, 40).mark(7, 50, 60).refused(3, 7, 70, 80);
        assertThat(rules()).isEmpty();
    }

    @Test
    void aValueReadWithItsTokenProvesTheMarkReachedIt() {
        write(5, "a", 10, 20).lostWrite(7, "b", 30, 40).read("b", 7, 50, 60).mark(5, 70, 80);
        assertThat(violations(Policy.MONOTONIC)).singleElement().satisfies(v -> {
            assertThat(v.rule()).isEqualTo(Rule.MARK_WENT_BACKWARDS);
            assertThat(v.explanation()).isEqualTo("mark 5 was read after mark 7 had been seen");
        });

        ops.clear();
        write(5, "a", 10, 20).lostWrite(7, "b", 30, 40).read("b", 7, 50, 60).refused(4, 5, 70, 80);
        assertThat(rules()).containsExactly(Rule.MARK_WENT_BACKWARDS);

        ops.clear();
        write(5, "a", 10, 20).lostWrite(7, "b", 30, 40).read("b", 7, 50, 60).mark(7, 70, 80);
        assertThat(rules()).isEmpty();
    }

    @Test
    void anAcceptedTokenAheadOfAMarkReadIsReportedOnceNotAlsoAsASeenMark() {
        write(5, "a", 1, 2).op(Kind.UPDATE, 7, "b", Outcome.OK, null, 7, 10, 20).mark(5, 30, 40);
        assertThat(rules()).containsExactly(Rule.MARK_WENT_BACKWARDS);
    }

    @Test
    void amongEqualTokensTheReCreateInvokedLastIsTheOneThatMustNotVanish() {
        // a slow write of token 5 overlaps a delete of 5; a re-create of 5 starts after the delete
        // returned and returns before the slow write does; then the key reads empty
        write(5, "a", 10, 100).delete(5, 30, 40).write(5, "a", 50, 60).read(null, 0, 110, 120);
        assertThat(rules()).containsExactly(Rule.ACCEPTED_WRITE_VANISHED);
    }

    @Test
    void whatReplacesAValueIsANewerOrDifferentWriteOrADeleteNotTheSameWriteAgain() {
        write(5, "a", 10, 20).write(5, "a", 30, 40).read("a", 5, 50, 60);
        assertThat(rules()).as("the same value and token written again").isEmpty();

        ops.clear();
        write(5, "a", 10, 20).write(5, "b", 30, 40).read("a", 5, 50, 60);
        assertThat(rules()).as("another value with the same token").containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        write(5, "a", 10, 20).delete(5, 30, 40).read("a", 5, 50, 60);
        assertThat(rules()).as("a delete with the same token").containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        write(5, "a", 10, 20).delete(4, 30, 40).read("a", 5, 50, 60);
        assertThat(rules()).as("a delete with an older token, wrongly accepted, replaces nothing")
                .containsExactly(Rule.STALE_WRITE_ACCEPTED);

        ops.clear();
        write(5, "a", 10, 20).write(5, "b", 30, 40).read("a", 5, 35, 60);
        assertThat(rules()).as("a replacement overlapping the read").isEmpty();
    }

    @Test
    void theReportNamesWhatReplacedTheValueNotAnIdenticalRewrite() {
        write(5, "a", 10, 20).write(5, "a", 30, 40).delete(5, 50, 60).read("a", 5, 70, 80);
        assertThat(violations(Policy.MONOTONIC)).singleElement().satisfies(v -> {
            assertThat(v.rule()).isEqualTo(Rule.STALE_OR_UNWRITTEN_READ);
            assertThat(v.explanation()).contains("an accepted DELETE with token 5 had replaced");
        });
    }

    @Test
    void anEmptyCountBeforeAnyIncrementReturnedIsNoLoss() {
        read(null, 0, 1, 2).read(null, 0, 3, 6).increment(1, "1", 5, 10).increment(2, "2", 11, 20);
        assertThat(rules()).isEmpty();
    }

    @Test
    void aCountThatIsNoNumberIsReportedEvenBeforeTheIncrementsReturned() {
        read("lots", 0, 1, 2).increment(1, "1", 5, 10);
        assertThat(violations(Policy.MONOTONIC)).filteredOn(v -> v.rule() == Rule.INCREMENT_LOST_OR_DOUBLED)
                .singleElement().satisfies(v -> assertThat(v.explanation()).startsWith("read count lots during 1 accepted"));
    }
}
