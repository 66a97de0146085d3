package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRun;
import dev.fencing.testkit.history.Operation.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The section of {@link FencedStoreContract} on two holders, each with its own store instance (as
 * another process would have): equal bytes, deletes and interleaved updates must still fence the
 * zombie, checked case by case, against a model and by {@link HistoryChecker}.
 */
abstract class TwoHolderCases extends SingleHolderCases {

    // ---- Two holders, each with its own store instance (another process), writing equal bytes ----
    // A condition that compares content instead of writes (an S3 ETag is a hash of the body) lets
    // the zombie through exactly when the newer holder wrote what the zombie last saw.

    @ParameterizedTest(name = "value \"{0}\"")
    @ValueSource(strings = {"same", ""})
    void aNewerHolderWritingTheZombiesBytesStillFencesTheZombie(String value) {
        FencedStore zombie = createStore(Policy.MONOTONIC);
        FencedStore newer = createStore(Policy.MONOTONIC);
        String key = key("k");
        zombie.write(token(5), key, value);
        newer.write(token(6), key, value);

        assertStale(() -> zombie.write(token(5), key, "ZOMBIE"), 6);
        assertStale(() -> zombie.write(token(5), key, value), 6);
        assertStale(() -> zombie.delete(token(5), key), 6);
        assertThat(zombie.read(key)).contains(new StoredValue(key, value, 6));
        assertThat(newer.read(key)).contains(new StoredValue(key, value, 6));
        assertThat(zombie.highWaterMark(key)).hasValue(6);
    }

    @Test
    void twoHoldersDeletingThenAZombieWriteLeaveTheKeyDeleted() {
        FencedStore zombie = createStore(Policy.MONOTONIC);
        FencedStore newer = createStore(Policy.MONOTONIC);
        String key = key("k");
        zombie.write(token(4), key, "v");
        zombie.delete(token(5), key);
        newer.delete(token(6), key);

        assertStale(() -> zombie.write(token(5), key, "resurrected"), 6);
        assertStale(() -> zombie.update(token(5), key, v -> "resurrected"), 6);
        assertStale(() -> zombie.delete(token(5), key), 6);
        assertThat(zombie.read(key)).isEmpty();
        assertThat(newer.read(key)).isEmpty();
        assertThat(zombie.highWaterMark(key)).hasValue(6);

        newer.delete(token(6), key); // a second delete under the same lease is not an error
        assertThat(newer.highWaterMark(key)).hasValue(6);
        assertThat(zombie.read(key)).isEmpty();
    }

    /**
     * A newer holder writes exactly the value the zombie's {@code update} read, between the
     * zombie's read and its conditional write: the zombie's write must be refused all the same.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void aNewerHolderWritingTheSameValueDuringAZombiesUpdateFencesTheUpdate(Policy policy) {
        FencedStore zombie = createStore(policy);
        FencedStore newer = createStore(policy);
        String key = key("k");
        newer.write(token(4), key, "same");
        AtomicBoolean interleaved = new AtomicBoolean();

        assertStale(() -> zombie.update(token(5), key, value -> {
            if (interleaved.compareAndSet(false, true)) {
                newer.write(token(6), key, value.orElseThrow());
            }
            return "ZOMBIE";
        }), 6);

        assertThat(interleaved).isTrue();
        assertThat(zombie.read(key)).contains(new StoredValue(key, "same", 6));
        assertThat(newer.highWaterMark(key)).hasValue(6);
    }

    /**
     * A seeded sequence of writes, deletes and updates by two holders — equal values, empty
     * values, repeated deletes, stale and fresh tokens — checked after every operation against a
     * model: the outcome, the value and the mark (read by each holder in turn) are exactly the
     * model's, so the mark never goes backwards. The seed is in the failure message.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void theMarkNeverGoesBackwardsAcrossHoldersEqualValuesAndDeletes(Policy policy) {
        FencedStore[] holders = {createStore(policy), createStore(policy)};
        String[] values = {"same", "", "other"};
        for (long seed = 1; seed <= 3; seed++) {
            Random random = new Random(seed);
            String key = key("seq-" + seed);
            long mark = 0;
            String value = null;
            for (int step = 0; step < 30; step++) {
                FencedStore holder = holders[random.nextInt(holders.length)];
                long token = Math.max(1, mark + random.nextInt(4) - 2);
                int op = random.nextInt(3);
                String written = op == 1 ? null : values[random.nextInt(values.length)];
                String what = String.format("seed %d step %d: %s with token %d (mark %d)", seed, step,
                        op == 0 ? "write '" + written + "'" : op == 1 ? "delete" : "update to '" + written + "'",
                        token, mark);
                boolean accepted = mark == 0 || policy.accepts(token, mark);
                try {
                    switch (op) {
                        case 0 -> holder.write(token(token), key, Objects.requireNonNull(written, "op 0 picks a value"));
                        case 1 -> holder.delete(token(token), key);
                        default -> holder.update(token(token), key, v -> written);
                    }
                    assertThat(accepted).as(what + " was accepted").isTrue();
                } catch (StaleTokenException e) {
                    assertThat(accepted).as(what + " was refused").isFalse();
                    assertThat(e.highWaterMark()).as(what + ": the refusal's mark").isEqualTo(mark);
                }
                if (accepted) {
                    mark = token;
                    value = written;
                }
                // each instance reads after every other step, in turn: both are checked throughout at half the
                // requests (on S3Mock, 9 requests a step made this case 26 s per policy)
                FencedStore reader = holders[step % holders.length];
                assertThat(reader.highWaterMark(key)).as(what + ": the mark after").hasValue(mark);
                assertThat(reader.read(key).map(StoredValue::value)).as(what + ": the value after")
                        .isEqualTo(Optional.ofNullable(value));
            }
        }
    }

    /**
     * A randomized history: three store instances, four writers sharing one token counter and
     * writing on with old tokens (zombies), identical and empty values, deletes, updates and
     * increments, checked by {@link HistoryChecker} — which looks at the real-time order only, so
     * it finds orderings nobody wrote a test for. The seed and the offending operations are in the
     * failure message; {@code -Dfencing.history.seed=N} replays one.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void aRandomHistoryOfHoldersAndZombiesBreaksNoRule(Policy policy) {
        long seed = Long.getLong("fencing.history.seed", ThreadLocalRandom.current().nextLong());
        History history = HistoryRun.builder().keyPrefix(key("history")).seed(seed).writers(4)
                .operationsPerWriter(60).timeLimit(Duration.ofSeconds(3)).build()
                .run(List.of(createStore(policy), createStore(policy), createStore(policy)));
        CheckResult result = HistoryChecker.check(history);

        result.assertPassed();
        assertThat(result.writeOutcomes().get(Outcome.OK)).as(result.summary()).isPositive();
        assertThat(result.writeOutcomes().get(Outcome.STALE)).as(result.summary()).isPositive();
    }
}
