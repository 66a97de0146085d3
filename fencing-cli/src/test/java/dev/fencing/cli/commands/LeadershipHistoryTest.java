package dev.fencing.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeadershipHistoryTest {

    private final LeadershipHistory history = new LeadershipHistory(java.time.Duration.ofNanos(100));

    @Test
    void termsOneAfterAnotherWithGrowingEpochsPass() {
        history.sighted("a", 3, 0, 1);
        history.sighted("a", 3, 10, 11);
        history.sighted("b", 7, 20, 21);
        history.sighted("b", 7, 30, 31);
        history.sighted("a", 9, 40, 41);
        assertThat(history.violations()).isEmpty();
        assertThat(history.terms()).extracting(LeadershipHistory.Sighted::epoch).containsExactly(3L, 7L, 9L);
    }

    @Test
    void anEpochLedByTwoCandidatesIsAViolation() {
        history.sighted("a", 3, 0, 1);
        history.sighted("b", 3, 10, 11);
        assertThat(history.violations()).containsExactly("epoch 3 led by both a and b");
    }

    @Test
    void twoBeliefsAtOnceAreAViolation() {
        history.sighted("a", 3, 0, 1);
        history.sighted("a", 3, 20, 21);
        history.sighted("b", 4, 10, 11);
        history.sighted("b", 4, 30, 31);
        assertThat(history.violations()).containsExactly("a (epoch 3) and b (epoch 4) both believed they led at once");
        assertThat(history.overlaps()).isEqualTo(history.violations());
        assertThat(history.epochViolations()).isEmpty();
    }

    @Test
    void aSmallerEpochLedMoreThanATtlAfterAGreaterOneIsAViolationWhateverTheServerLost() {
        history.sighted("b", 8, 0, 1);
        history.sighted("b", 8, 5, 6);
        history.sighted("a", 3, 200, 201);
        assertThat(history.violations()).containsExactly("epoch 8 (b) led before epoch 3 (a) did, more than a TTL later");
        assertThat(history.epochViolations()).isEqualTo(history.violations());
        assertThat(history.overlaps()).isEmpty();
    }

    @Test
    void aSmallerEpochStillBelievedWithinATtlIsAViolationOnlyWhileTheServerKeepsItsGrants() {
        // a term granted before a restart that lost its key lives out its lease after the newer began
        history.sighted("b", 8, 0, 1);
        history.sighted("b", 8, 5, 6);
        history.sighted("a", 3, 10, 11);
        assertThat(history.overlaps()).containsExactly("epoch 8 (b) led before epoch 3 (a) did");
        assertThat(history.epochViolations()).isEmpty();
    }

    @Test
    void sightingsWhoseCallsOverlapAreNotCountedAsCertain() {
        // one sighting each, the calls overlapping in time: neither belief is certain at a common instant
        history.sighted("a", 3, 0, 10);
        history.sighted("b", 4, 5, 15);
        assertThat(history.violations()).isEmpty();
    }
}
