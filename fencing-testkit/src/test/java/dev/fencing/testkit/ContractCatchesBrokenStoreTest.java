package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import java.util.Set;
import java.util.stream.Collectors;
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

    @Test
    void theSameContractPassesTheReferenceStore() {
        EngineTestKit.engine("junit-jupiter")
                .selectors(selectClass(InMemoryFencedStoreTest.class))
                .execute()
                .testEvents()
                .assertStatistics(stats -> stats.failed(0).aborted(0));
    }
}
