package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StorageBasedFencedStore;
import dev.fencing.core.spi.WriteOutcome;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** Runs {@link FencedStoreContract} against a store that ignores tokens: the contract must fail it. */
class ContractCatchesBrokenStoreTest {

    /** Not picked up by Surefire (nested); run only through the engine below. */
    static class BrokenStoreContract extends FencedStoreContract {
        private final BrokenFencedStore shared = new BrokenFencedStore();

        @Override
        protected FencedStore createStore(Policy policy) {
            return shared;
        }
    }

    @Test
    void theContractFailsAStoreThatIgnoresTokens() {
        Events tests = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(BrokenStoreContract.class))
                .execute()
                .testEvents();

        Set<String> failed = tests.failed().stream()
                .map(event -> event.getTestDescriptor().getLegacyReportingName())
                .map(name -> name.replaceAll("\\(.*", ""))
                .collect(Collectors.toSet());

        assertThat(failed).contains(
                "anOlderTokenIsRefusedWithTheMarkAndTheValueIsUntouched",
                "theZombieWriterIsRefusedAfterTheNewHolderWrote",
                "aDeleteKeepsTheMarkSoAZombieCannotRecreateTheItem",
                "strictRefusesAnEqualTokenAndAcceptsANewerOne",
                "updateLosesNothingWhenAZombieWritesBetweenTheReadAndTheWrite",
                "aStaleDeleteIsRefusedAndTheValueSurvives",
                "updateWithAStaleTokenIsRefusedAndWritesNothing",
                "aNewerHolderWritingTheZombiesBytesStillFencesTheZombie",
                "twoHoldersDeletingThenAZombieWriteLeaveTheKeyDeleted",
                "aNewerHolderWritingTheSameValueDuringAZombiesUpdateFencesTheUpdate",
                "theMarkNeverGoesBackwardsAcrossHoldersEqualValuesAndDeletes",
                "tokensAbove2To53AreComparedExactly",
                "aRandomHistoryOfHoldersAndZombiesBreaksNoRule");
        // racingWritersLeaveTheNewerValueEveryTime also fails it, but only when the race goes the
        // zombie's way, so it is not required here.
    }

    /**
     * Not picked up by Surefire (nested): the reference store's memory behind an accessor that
     * sends a write again when its reply was lost, as an SDK's or a driver's blind retry does.
     */
    static class BlindRetryContract extends FencedStoreContract {
        private final InMemoryStorage memory = new InMemoryStorage();

        @Override
        protected FencedStore createStore(Policy policy) {
            return InMemoryFencedStore.builder().storage(memory).policy(policy).build();
        }

        @Override
        protected LostReplies lostReplies() {
            return LostReplies.of(policy -> new StorageBasedFencedStore(new Resending(memory.accessor()), policy,
                    FencingListener.NONE, 100), memory::loseNextWriteReply, memory::lostReplies, false, () -> { });
        }
    }

    private record Resending(InMemoryStorageAccessor memory) implements StorageAccessor<Long> {
        @Override
        public Optional<Snapshot<Long>> load(String key) {
            return memory.load(key);
        }

        @Override
        public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
            try {
                return memory.write(key, value, token, policy);
            } catch (WriteOutcomeUnknownException lost) {
                return memory.write(key, value, token, policy);
            }
        }

        @Override
        public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, String value,
                FencingToken token, Policy policy) {
            try {
                return memory.writeIfUnchanged(key, expected, value, token, policy);
            } catch (WriteOutcomeUnknownException lost) {
                return memory.writeIfUnchanged(key, expected, value, token, policy);
            }
        }
    }

    @Test
    void theLostReplyCasesFailAStoreThatSendsALostWriteAgain() {
        Set<String> failed = EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(BlindRetryContract.class))
                .execute()
                .testEvents()
                .failed()
                .stream()
                .map(event -> event.getTestDescriptor().getLegacyReportingName().replaceAll("\\(.*", ""))
                .collect(Collectors.toSet());

        assertThat(failed).contains(
                "aStrictWriteWhoseReplyIsLostIsWrittenOrUnknownAndNeverAppliedTwice", // told "refused"
                "anIncrementWhoseReplyIsLostIsAppliedExactlyOnce", // a conflict with itself, applied again
                "aSameTokenWriterInTheWindowOfALostReplyLeavesEachIncrementAppliedOnce",
                "aDeleteWhoseReplyIsLostLeavesTheTombstoneWithItsMark"); // STRICT: told "refused"
        // the random history catches the blind retry only when its losses land on a write the retry
        // changes (a strict write, an increment): a finding, but not one every seed makes
        assertThat(failed).isSubsetOf(
                "aStrictWriteWhoseReplyIsLostIsWrittenOrUnknownAndNeverAppliedTwice",
                "anIncrementWhoseReplyIsLostIsAppliedExactlyOnce",
                "aSameTokenWriterInTheWindowOfALostReplyLeavesEachIncrementAppliedOnce",
                "aDeleteWhoseReplyIsLostLeavesTheTombstoneWithItsMark",
                "aRandomHistoryWithLostRepliesBreaksNoRule");
    }

    @Test
    void theSameContractPassesTheReferenceStore() {
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(InMemoryFencedStoreTest.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.failed(0).aborted(0));
    }
}
