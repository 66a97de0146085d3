package dev.fencing.testkit.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.history.Operation.Kind;
import dev.fencing.testkit.history.Operation.Outcome;
import dev.fencing.testkit.history.Violation.Rule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The checker's rules on small hand-written histories, each broken one way and its valid twin. */
class HistoryCheckerTest {

    private final List<Operation> ops = new ArrayList<>();
    private long clock;

    /** Appends an operation that runs alone: invoked after the previous one returned. */
    private HistoryCheckerTest op(Kind kind, long token, String value, Outcome outcome, String observed,
            long observedToken) {
        long invoked = clock += 10;
        long completed = clock += 10;
        ops.add(new Operation(0, 0, "k", kind, token, value, outcome, observed, observedToken, invoked, completed,
                outcome == Outcome.UNKNOWN ? "RedisCommandTimeoutException: timed out" : null));
        return this;
    }

    private HistoryCheckerTest write(long token, String value) {
        return op(Kind.WRITE, token, value, Outcome.OK, null, 0);
    }

    private HistoryCheckerTest delete(long token) {
        return op(Kind.DELETE, token, null, Outcome.OK, null, 0);
    }

    private HistoryCheckerTest refused(long token, long mark) {
        return op(Kind.WRITE, token, null, Outcome.STALE, null, mark);
    }

    private HistoryCheckerTest read(String value, long token) {
        return op(Kind.READ, 0, null, Outcome.OK, value, value == null ? 0 : token);
    }

    private HistoryCheckerTest mark(long mark) {
        return op(Kind.MARK, 0, null, Outcome.OK, null, mark);
    }

    private HistoryCheckerTest increment(long token, String result) {
        return op(Kind.INCREMENT, token, result, Outcome.OK, null, token);
    }

    private List<Rule> rules(Policy policy) {
        CheckResult result = HistoryChecker.check(new History(policy, 7, ops));
        return result.violations().stream().map(Violation::rule).toList();
    }

    @Test
    void aZombieWriteAcceptedAfterANewerOneIsReported() {
        write(5, "same").write(6, "same").write(5, "ZOMBIE");
        assertThat(rules(Policy.MONOTONIC)).contains(Rule.STALE_WRITE_ACCEPTED);
    }

    @Test
    void aHolderRewritingItsOwnTokenIsFineUnderMonotonicButNotUnderStrict() {
        write(5, "a").write(5, "b").read("b", 5).mark(5);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
        assertThat(rules(Policy.STRICT)).containsExactly(Rule.STALE_WRITE_ACCEPTED);
    }

    @Test
    void overlappingWritesMayLandInEitherOrder() {
        ops.add(new Operation(0, 0, "k", Kind.WRITE, 6, "new", Outcome.OK, null, 0, 0, 100, null));
        ops.add(new Operation(1, 1, "k", Kind.WRITE, 5, "old", Outcome.OK, null, 0, 50, 150, null));
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
    }

    @Test
    void aRefusalMustNameARealMarkThatRefusesAndIsNotBehind() {
        write(7, "a").refused(5, 7);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();

        ops.clear();
        write(7, "a").refused(5, 9);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.REFUSAL_MARK_WRONG);

        ops.clear();
        write(6, "a").write(7, "b").refused(5, 6);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.REFUSAL_MARK_WRONG);

        ops.clear();
        write(4, "a").refused(5, 4);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.REFUSAL_MARK_WRONG);
        assertThat(rules(Policy.STRICT)).containsExactly(Rule.REFUSAL_MARK_WRONG);
    }

    @Test
    void theMarkReadNeverGoesBackwardsAndIsARealToken() {
        write(5, "a").delete(8).mark(8).write(9, "b").mark(9);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();

        ops.clear();
        write(5, "a").delete(8).mark(5);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.MARK_WENT_BACKWARDS);

        ops.clear();
        write(5, "a").mark(6);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.MARK_NOBODY_WROTE);

        ops.clear();
        ops.add(new Operation(0, 0, "k", Kind.WRITE, 9, "b", Outcome.UNKNOWN, null, 0, 0, 10, "timeout"));
        clock = 20;
        mark(9).mark(0);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.MARK_WENT_BACKWARDS);
    }

    @Test
    void aDeletedValueMustNotComeBackAndAnAcceptedOneMustNotVanish() {
        write(5, "a").delete(6).read(null, 0).write(7, "b").read("b", 7);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();

        ops.clear();
        write(5, "a").delete(6).read("a", 5);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        write(5, "a").delete(5).read("a", 5);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        write(5, "a").read("a", 4);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        write(5, "a").read(null, 0);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.ACCEPTED_WRITE_VANISHED);
    }

    @Test
    void aReadOfAValueNoWriteWroteIsReported() {
        write(5, "a").read("phantom", 5);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        write(5, "a").read("a", 6);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.STALE_OR_UNWRITTEN_READ);

        ops.clear();
        read("phantom", 3);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.STALE_OR_UNWRITTEN_READ);
    }

    @Test
    void aMarkReadBehindAMarkARefusalNamedIsReported() {
        write(5, "a").op(Kind.WRITE, 9, "b", Outcome.UNKNOWN, null, 0).refused(3, 9).mark(5);
        CheckResult result = HistoryChecker.check(new History(Policy.MONOTONIC, 7, ops));
        assertThat(result.violations()).singleElement().satisfies(v -> {
            assertThat(v.rule()).isEqualTo(Rule.MARK_WENT_BACKWARDS);
            assertThat(v.explanation()).contains("mark 5 was read after mark 9");
        });

        ops.clear();
        write(5, "a").op(Kind.WRITE, 9, "b", Outcome.UNKNOWN, null, 0).refused(3, 9).mark(9);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
    }

    @Test
    void aMarkReadBehindAnAcceptedTokenIsReportedEvenWithoutAnEarlierMarkRead() {
        write(5, "a").write(8, "b").mark(5);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.MARK_WENT_BACKWARDS);

        ops.clear();
        write(5, "a").write(8, "b").mark(8);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
    }

    private List<String> incrementReports() {
        return HistoryChecker.check(new History(Policy.MONOTONIC, 7, ops)).violations().stream()
                .filter(v -> v.rule() == Rule.INCREMENT_LOST_OR_DOUBLED).map(Violation::explanation).toList();
    }

    @Test
    void aCountReadAfterAllIncrementsIsAtLeastTheAcceptedAndAtMostAcceptedPlusUnclear() {
        increment(1, "1").increment(2, "2").op(Kind.INCREMENT, 3, "3", Outcome.UNKNOWN, null, 0).read("2", 2);
        assertThat(incrementReports()).isEmpty();

        ops.clear();
        increment(1, "1").increment(2, "2").op(Kind.INCREMENT, 3, "3", Outcome.UNKNOWN, null, 0).read("3", 3);
        assertThat(incrementReports()).isEmpty();

        ops.clear();
        increment(1, "1").increment(2, "2").op(Kind.INCREMENT, 3, "3", Outcome.UNKNOWN, null, 0).read("4", 3);
        assertThat(incrementReports()).singleElement().asString().contains("read count 4 after 2 accepted and 1 unclear");

        ops.clear();
        increment(1, "1").increment(2, "2").read("1", 1);
        assertThat(incrementReports()).singleElement().asString().contains("read count 1 after 2 accepted");

        ops.clear();
        increment(1, "1").increment(2, "2").read(null, 0);
        assertThat(incrementReports()).singleElement().asString().contains("read count null after");

        ops.clear();
        increment(1, "1").read("one", 1);
        assertThat(incrementReports()).singleElement().asString().contains("read count one");

        ops.clear();
        increment(1, "1").read("-1", 1);
        assertThat(incrementReports()).hasSize(1);
    }

    @Test
    void aCountReadDuringTheIncrementsMayBeBehindButNotAhead() {
        increment(1, "1");
        // a read invoked before the second increment returned
        ops.add(new Operation(0, 0, "k", Kind.INCREMENT, 2, "2", Outcome.OK, null, 2, 30, 60, null));
        ops.add(new Operation(0, 0, "k", Kind.READ, 0, null, Outcome.OK, "1", 1, 40, 50, null));
        assertThat(incrementReports()).isEmpty();

        ops.set(2, new Operation(0, 0, "k", Kind.READ, 0, null, Outcome.OK, "3", 2, 40, 50, null));
        assertThat(incrementReports()).singleElement().asString().contains("during");

        // a read invoked after the last increment returned but not after an unclear one was invoked
        ops.clear();
        clock = 0;
        increment(1, "1").increment(2, "2");
        ops.add(new Operation(0, 0, "k", Kind.INCREMENT, 3, "3", Outcome.UNKNOWN, null, 0, 100, 200, "timeout"));
        ops.add(new Operation(0, 0, "k", Kind.READ, 0, null, Outcome.OK, "1", 1, 210, 220, null));
        assertThat(incrementReports()).singleElement().asString().contains("read count 1 after");
        // the checker judges a read "after" only once every increment, unclear ones too, was invoked
        ops.set(3, new Operation(0, 0, "k", Kind.READ, 0, null, Outcome.OK, "1", 1, 100, 220, null));
        assertThat(incrementReports()).isEmpty();
        ops.set(2, new Operation(0, 0, "k", Kind.INCREMENT, 3, "3", Outcome.STALE, null, 3, 10, 12, null));
        ops.set(3, new Operation(0, 0, "k", Kind.READ, 0, null, Outcome.OK, "1", 1, 40, 220, null));
        assertThat(incrementReports()).as("invoked as the last increment returned").isEmpty();
        ops.set(3, new Operation(0, 0, "k", Kind.READ, 0, null, Outcome.OK, "1", 1, 41, 220, null));
        assertThat(incrementReports()).singleElement().asString().contains("read count 1 after");
    }

    @Test
    void twoIncrementsReturningOneValueAreReportedOnce() {
        increment(1, "1").increment(2, "1");
        assertThat(incrementReports()).singleElement().asString().contains("two accepted increments both returned '1'");
    }

    @Test
    void aKeyAlsoWrittenOtherwiseIsNoCounter() {
        increment(1, "1").write(2, "9").read("9", 2);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();

        ops.clear();
        write(1, "9").read("9", 1);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
    }

    @Test
    void aReCreateAfterADeleteOfTheSameTokenMustNotVanish() {
        write(10, "a").delete(10).write(10, "b").read(null, 0);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.ACCEPTED_WRITE_VANISHED);

        ops.clear();
        write(10, "a").delete(10).write(10, "b").read("b", 10);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();

        ops.clear();
        write(10, "a").delete(10).write(10, "b").delete(10).read(null, 0);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
    }

    @Test
    void aReCreateAfterADeleteOfAnOlderTokenMustNotVanish() {
        write(10, "a").delete(11).write(12, "b").read(null, 0);
        assertThat(rules(Policy.MONOTONIC)).containsExactly(Rule.ACCEPTED_WRITE_VANISHED);

        ops.clear();
        write(10, "a").delete(11).write(12, "b").read("b", 12);
        assertThat(rules(Policy.STRICT)).isEmpty();
    }

    @Test
    void aDeleteOverlappingTheReCreateMayExplainAnEmptyRead() {
        write(10, "a");
        long deleteInvoked = clock += 10;
        long writeInvoked = clock += 10;
        long writeCompleted = clock += 10;
        long deleteCompleted = clock += 10;
        ops.add(new Operation(0, 0, "k", Kind.DELETE, 10, null, Outcome.OK, null, 0, deleteInvoked,
                deleteCompleted, null));
        ops.add(new Operation(0, 0, "k", Kind.WRITE, 10, "b", Outcome.OK, null, 0, writeInvoked, writeCompleted,
                null));
        read(null, 0);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
    }

    @Test
    void aWriteWhoseReplyWasLostMayExplainALaterRead() {
        op(Kind.WRITE, 5, "a", Outcome.UNKNOWN, null, 0).read("a", 5).mark(5);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();
    }

    @Test
    void anUpdateWhoseReplyWasLostIsRecordedWithTheValueItMayHaveWritten() {
        FencedStore memory = TestStores.over(new TestStores.Memory(), Policy.MONOTONIC);
        FencedStore replyLost = new FencedStore() {
            @Override
            public void write(FencingToken token, String key, String value) {
                memory.write(token, key, value);
            }

            @Override
            public Optional<StoredValue> read(String key) {
                return memory.read(key);
            }

            @Override
            public StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change) {
                memory.update(token, key, change);
                throw WriteOutcomeUnknownException.of(key, new IOException("reply lost after the update landed"));
            }

            @Override
            public void delete(FencingToken token, String key) {
                memory.delete(token, key);
            }

            @Override
            public OptionalLong highWaterMark(String key) {
                return memory.highWaterMark(key);
            }

            @Override
            public Policy policy() {
                return memory.policy();
            }
        };
        HistoryRecorder recorder = new HistoryRecorder();
        Operation update = recorder.update(0, 0, replyLost, FencingToken.of("lock", 4), "k", "same");
        recorder.read(0, 0, replyLost, "k");

        assertThat(update.outcome()).isEqualTo(Outcome.UNKNOWN);
        assertThat(update.value()).isEqualTo("same");
        HistoryChecker.check(recorder.history(Policy.MONOTONIC, 1)).assertPassed();
    }

    @Test
    void theFinalReadsAreRecordedAsWriterMinusOneWhicheverThreadMakesThem() {
        FencedStore memory = TestStores.over(new TestStores.Memory(), Policy.MONOTONIC);
        HistoryRecorder recorder = new HistoryRecorder();
        recorder.recording(0, memory, false).write(FencingToken.of("lock", 3), "k", "v"); // this thread: writer 0
        Optional<StoredValue> read = recorder.recordingFinalReads(0, memory).read("k");

        assertThat(read).contains(new StoredValue("k", "v", 3));
        List<Operation> recorded = recorder.history(Policy.MONOTONIC, 1).operations();
        assertThat(recorded).extracting(Operation::writer).containsExactly(0, -1);
        assertThat(recorded.get(1).kind()).isEqualTo(Kind.READ);
    }

    @Test
    void incrementsAreNeitherLostNorDoubled() {
        increment(1, "1").increment(2, "2").op(Kind.INCREMENT, 1, null, Outcome.STALE, null, 2).read("2", 2);
        assertThat(rules(Policy.MONOTONIC)).isEmpty();

        ops.clear();
        increment(1, "1").increment(2, "1").read("1", 2);
        assertThat(rules(Policy.MONOTONIC)).contains(Rule.INCREMENT_LOST_OR_DOUBLED);

        ops.clear();
        increment(1, "1").increment(2, "2").op(Kind.INCREMENT, 3, null, Outcome.UNKNOWN, null, 0).read("4", 3);
        assertThat(rules(Policy.MONOTONIC)).contains(Rule.INCREMENT_LOST_OR_DOUBLED);
    }

    @Test
    void aHistoryRoundTripsThroughAFileWithNullsEmptiesAndEscapes(@TempDir Path dir) throws Exception {
        write(5, "").write(6, "tab\tline\nback\\slash\"").op(Kind.WRITE, 7, "x", Outcome.UNKNOWN, null, 0).read(null, 0);
        History history = new History(Policy.STRICT, -3, ops);
        Path file = dir.resolve("h.txt");
        history.writeTo(file);
        assertThat(History.readFrom(file)).isEqualTo(history);

        Files.writeString(file, "not a history\n");
        assertThatThrownBy(() -> History.readFrom(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a fencing history");
        Files.writeString(file, "# fencing-history/1 policy=MONOTONIC seed=1\n0\t0\tk\n");
        assertThatThrownBy(() -> History.readFrom(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2");
    }

    @ParameterizedTest
    @EnumSource(Policy.class)
    void aCorrectStorePassesARandomRun(Policy policy) {
        var memory = new TestStores.Memory();
        List<FencedStore> processes = List.of(TestStores.over(memory, policy),
                TestStores.over(memory, policy), TestStores.over(memory, policy));
        History history = HistoryRun.builder().seed(11).operationsPerWriter(2_000).build().run(processes);
        CheckResult result = HistoryChecker.check(history);

        result.assertPassed();
        assertThat(result.writeOutcomes().get(Outcome.OK)).isGreaterThan(100);
        assertThat(result.writeOutcomes().get(Outcome.STALE)).isGreaterThan(100);
    }

    @Test
    void aStoreThatIgnoresTokensFailsARandomRunAndTheReportNamesTheSeed() {
        FencedStore broken = TestStores.ignoringTokens();
        History history = HistoryRun.builder().seed(12).build().run(List.of(broken, broken));
        CheckResult result = HistoryChecker.check(history);

        assertThat(result.violations()).extracting(Violation::rule).contains(Rule.STALE_WRITE_ACCEPTED);
        // the report shows the first violations only, and which come first depends on the threads' timing
        assertThatThrownBy(result::assertPassed).isInstanceOf(AssertionError.class)
                .hasMessageContaining("seed 12").hasMessageContaining(result.violations().get(0).rule().name());
    }

    @Test
    void settingsOutsideTheirRangesAreRefusedByName() {
        assertThatThrownBy(() -> HistoryRun.builder().writers(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("writers").hasMessageContaining("got 0");
        assertThatThrownBy(() -> HistoryRun.builder().keyPrefix(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> HistoryRun.builder().build().run(List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one store");
    }
}
