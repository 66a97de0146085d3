package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRecorder;
import dev.fencing.testkit.history.HistoryRun;
import dev.fencing.testkit.history.Operation;
import dev.fencing.testkit.history.Operation.Outcome;
import dev.fencing.testkit.history.Violation;
import dev.fencing.testkit.history.Violation.Rule;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The history checker (fencing-history) against the testkit's reference stores: the correct one
 * passes a random run under both policies, the one that ignores tokens fails it. They live here,
 * not beside the checker's own tests, because fencing-history depends on nothing of the testkit.
 */
class HistoryOverReferenceStoresTest {

    @Test
    void anUpdateWhoseReplyWasLostIsRecordedWithTheValueItMayHaveWritten() {
        FencedStore memory = InMemoryFencedStore.create();
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

    @ParameterizedTest
    @EnumSource(Policy.class)
    void theReferenceStorePassesARandomRun(Policy policy) {
        var memory = InMemoryFencedStore.memory();
        List<FencedStore> processes = List.of(InMemoryFencedStore.over(memory, policy),
                InMemoryFencedStore.over(memory, policy), InMemoryFencedStore.over(memory, policy));
        History history = HistoryRun.builder().seed(11).operationsPerWriter(2_000).build().run(processes);
        CheckResult result = HistoryChecker.check(history);

        result.assertPassed();
        assertThat(result.writeOutcomes().get(Outcome.OK)).isGreaterThan(100);
        assertThat(result.writeOutcomes().get(Outcome.STALE)).isGreaterThan(100);
    }

    @Test
    void aStoreThatIgnoresTokensFailsARandomRunAndTheReportNamesTheSeed() {
        FencedStore broken = new BrokenFencedStore();
        History history = HistoryRun.builder().seed(12).build().run(List.of(broken, broken));
        CheckResult result = HistoryChecker.check(history);

        assertThat(result.violations()).extracting(Violation::rule).contains(Rule.STALE_WRITE_ACCEPTED);
        // the report shows the first violations only, and which come first depends on the threads' timing
        assertThatThrownBy(result::assertPassed).isInstanceOf(AssertionError.class)
                .hasMessageContaining("seed 12").hasMessageContaining(result.violations().get(0).rule().name());
    }
}
