package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.history.CheckResult;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRun;
import dev.fencing.testkit.history.Operation.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The section of {@link FencedStoreContract} on lost replies (guarantee 8): the store acted and its
 * reply was lost. Runs only where the implementing test offers {@link #lostReplies()}.
 */
abstract class LostReplyCases extends TwoHolderCases {

    // ---- Lost replies: the store acted, its reply was lost (guarantee 8) ----

    /**
     * Stores of the same server whose replies the contract can lose after the server acted (see
     * {@link LostReplies}); null (the default) if the store module offers none, and the lost-reply
     * cases are then skipped with {@link #whyNoLostReplies()} printed. Called once per case; the
     * contract closes it after the case.
     */
    protected @Nullable LostReplies lostReplies() {
        return null;
    }

    /** Why {@link #lostReplies()} is null, printed with the skip; override it with the reason. */
    protected String whyNoLostReplies() {
        return "override lostReplies()";
    }

    private LostReplies requireLostReplies() {
        LostReplies faults = lostReplies();
        if (faults == null) {
            Skip.because(getClass().getSimpleName() + " offers no LostReplies: " + whyNoLostReplies());
            throw new AssertionError("Skip.because returned");
        }
        return closeAfterTest(faults);
    }

    /** How a write whose reply was lost ended for its caller. */
    private enum Told { WRITTEN, REFUSED, UNKNOWN }

    /**
     * Runs {@code write} with its reply lost and {@code inTheWindow} run by another writer between
     * the loss and the store's next move; returns what the caller was told. Any other exception (an
     * I/O error passed on as it is, a "connection closed" from a later request) fails the case.
     */
    private static Told loseTheReplyTo(LostReplies faults, Runnable write, Runnable inTheWindow) {
        AtomicReference<Throwable> windowFailed = new AtomicReference<>();
        AtomicBoolean windowRan = new AtomicBoolean();
        int lostBefore = faults.lost();
        faults.loseNextWriteReply(() -> {
            try {
                inTheWindow.run();
                windowRan.set(true);
            } catch (RuntimeException | AssertionError e) {
                windowFailed.set(e);
            }
        });
        Told told;
        try {
            write.run();
            told = Told.WRITTEN;
        } catch (StaleTokenException e) {
            told = Told.REFUSED;
        } catch (WriteOutcomeUnknownException e) {
            assertThat(e.getCause()).as("the unknown outcome carries the I/O error that lost the reply").isNotNull();
            told = Told.UNKNOWN;
        }
        assertThat(faults.lost()).as("the fault lost exactly the write's reply").isEqualTo(lostBefore + 1);
        assertThat(windowFailed.get()).as("the writer in the window").isNull();
        assertThat(windowRan).as("the window ran").isTrue();
        return told;
    }

    /** The caller was told the truth: "written" only if it landed, "refused" only if it did not. */
    private static void assertTruthful(LostReplies faults, Told told, boolean landed, boolean windowEmpty) {
        if (told == Told.WRITTEN) {
            assertThat(landed).as("told 'written': the read-back shows the write").isTrue();
        } else if (told == Told.REFUSED) {
            assertThat(landed).as("told 'refused' (StaleTokenException) for a write that landed").isFalse();
        } else if (faults.provesItsOwnWrites() && windowEmpty) {
            throw new AssertionError("the store proves its own writes, nobody wrote in the window, and yet it"
                    + " answered WriteOutcomeUnknownException instead of 'written'");
        }
    }

    /**
     * A {@link Policy#STRICT} write whose reply is lost after it landed: the holder is told written,
     * or the outcome is unknown — never "refused", which a blind retry meeting the write's own mark
     * would say. The holder then re-reads and decides: writing again with the same token is refused
     * (STRICT), so the write is applied once.
     */
    @Test
    void aStrictWriteWhoseReplyIsLostIsWrittenOrUnknownAndNeverAppliedTwice() {
        LostReplies faults = requireLostReplies();
        FencedStore holder = faults.store(Policy.STRICT);
        FencedStore observer = createStore(Policy.STRICT);
        String key = key("k");
        holder.write(token(5), key, "before");

        Told told = loseTheReplyTo(faults, () -> holder.write(token(6), key, "after"), () -> { });

        boolean landed = observer.read(key).equals(Optional.of(new StoredValue(key, "after", 6)));
        assertTruthful(faults, told, landed, true);
        if (landed) {
            assertStale(() -> holder.write(token(6), key, "after"), 6);
        } else {
            assertThat(observer.read(key)).contains(new StoredValue(key, "before", 5));
            holder.write(token(6), key, "after");
        }
        assertThat(observer.read(key)).contains(new StoredValue(key, "after", 6));
    }

    /**
     * An increment whose reply is lost after it landed: told written (the new value) or unknown;
     * the holder re-reads, retries only if its increment is not there, and the count goes up by
     * exactly one — a store that lets its client re-send the write, or takes its own landed write
     * for a conflict and applies the change again, counts two.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void anIncrementWhoseReplyIsLostIsAppliedExactlyOnce(Policy policy) {
        LostReplies faults = requireLostReplies();
        FencedStore holder = faults.store(policy);
        FencedStore observer = createStore(policy);
        String key = key("counter");
        holder.write(token(5), key, "0");
        FencingToken token = token(6);
        AtomicReference<StoredValue> returned = new AtomicReference<>();

        Told told = loseTheReplyTo(faults, () -> returned.set(holder.update(token, key, LostReplyCases::increment)),
                () -> { });

        StoredValue once = new StoredValue(key, "1", 6);
        boolean landed = observer.read(key).equals(Optional.of(once));
        assertTruthful(faults, told, landed, true);
        if (told == Told.WRITTEN) {
            assertThat(returned.get()).isEqualTo(once);
        }
        if (!landed) {
            holder.update(token, key, LostReplyCases::increment);
        }
        assertThat(observer.read(key)).as("one increment, its reply lost").contains(once);
    }

    /**
     * Another writer with the same token (a second worker under one lease) increments the item in
     * the window between the lost reply and the holder's next move. The holder may not be able to
     * prove its own write any more and be told the outcome is unknown, but each increment is
     * applied once: 2, never 3.
     */
    @Test
    void aSameTokenWriterInTheWindowOfALostReplyLeavesEachIncrementAppliedOnce() {
        LostReplies faults = requireLostReplies();
        FencedStore holder = faults.store(Policy.MONOTONIC);
        FencedStore other = createStore(Policy.MONOTONIC);
        String key = key("counter");
        FencingToken token = token(5);
        holder.write(token, key, "0");

        Told told = loseTheReplyTo(faults, () -> holder.update(token, key, LostReplyCases::increment),
                () -> other.update(token, key, LostReplyCases::increment));

        assertThat(told).as("a same-token write under MONOTONIC is never refused").isNotEqualTo(Told.REFUSED);
        assertThat(other.read(key)).as("two increments of one token, the holder's reply lost")
                .contains(new StoredValue(key, "2", 5));
    }

    /**
     * A delete whose reply is lost after it landed: told written or unknown, the tombstone keeps
     * the delete's token, and a zombie cannot re-create the item. Deleting again with the same
     * token is refused under STRICT and accepted under MONOTONIC, and changes nothing.
     */
    @ParameterizedTest
    @EnumSource(Policy.class)
    void aDeleteWhoseReplyIsLostLeavesTheTombstoneWithItsMark(Policy policy) {
        LostReplies faults = requireLostReplies();
        FencedStore holder = faults.store(policy);
        FencedStore observer = createStore(policy);
        String key = key("k");
        holder.write(token(5), key, "v");

        Told told = loseTheReplyTo(faults, () -> holder.delete(token(6), key), () -> { });

        boolean landed = observer.read(key).isEmpty() && observer.highWaterMark(key).equals(OptionalLong.of(6));
        assertTruthful(faults, told, landed, true);
        if (!landed) {
            holder.delete(token(6), key);
        } else if (policy == Policy.STRICT) {
            assertStale(() -> holder.delete(token(6), key), 6);
        } else {
            holder.delete(token(6), key);
        }
        assertThat(observer.read(key)).isEmpty();
        assertThat(observer.highWaterMark(key)).hasValue(6);
        assertStale(() -> observer.write(token(5), key, "zombie"), 6);
    }

    /**
     * The randomized history of {@link #aRandomHistoryOfHoldersAndZombiesBreaksNoRule} with one
     * of the three stores losing a write reply at its first write and then one at a time, 100 ms
     * apart at the least: a lost reply is a write that may or
     * may not have taken effect, and no increment is lost or doubled.
     */
    @Test
    void aRandomHistoryWithLostRepliesBreaksNoRule() {
        LostReplies faults = requireLostReplies();
        List<FencedStore> stores = List.of(faults.store(Policy.MONOTONIC), createStore(Policy.MONOTONIC),
                createStore(Policy.MONOTONIC));
        stores.get(0).write(token(1), key("warm-up"), "x");
        long seed = Long.getLong("fencing.history.seed", ThreadLocalRandom.current().nextLong());
        ScheduledExecutorService dropper = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger armed = new AtomicInteger(1);
        History history;
        try {
            faults.loseNextWriteReply(() -> { }); // at least one, however fast the history runs
            // the next loss only once the last one happened, and not within 100 ms of it: a client that
            // re-sends after reconnecting (Lettuce) would otherwise lose the re-sent reply as well, again
            // and again, and back off for longer each time
            dropper.scheduleWithFixedDelay(() -> {
                if (faults.lost() == armed.get()) {
                    armed.incrementAndGet();
                    faults.loseNextWriteReply(() -> { });
                }
            }, 100, 100, TimeUnit.MILLISECONDS);
            history = HistoryRun.builder().keyPrefix(key("history")).seed(seed).writers(4)
                    .operationsPerWriter(60).timeLimit(Duration.ofSeconds(3)).build().run(stores);
        } finally {
            dropper.shutdownNow();
        }
        CheckResult result = HistoryChecker.check(history);

        result.assertPassed();
        assertThat(faults.lost()).as("replies lost during the history").isPositive();
        assertThat(result.writeOutcomes().get(Outcome.OK)).as(result.summary()).isPositive();
    }

    private static String increment(Optional<String> value) {
        return Integer.toString(Integer.parseInt(value.orElse("0")) + 1);
    }
}
