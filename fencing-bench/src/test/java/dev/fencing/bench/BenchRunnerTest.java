package dev.fencing.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The bench's bookkeeping, without servers: the order of turns, medians, the repeat count. */
class BenchRunnerTest {

    /**
     * Every round is a permutation, and in each block of n rounds (2n for an odd n) every contender
     * directly follows every other equally often — what merely rotating the first turn does not do.
     */
    @Test
    void everyContenderFollowsEveryOtherEquallyOften() {
        for (int n = 2; n <= 10; n++) {
            int block = n % 2 == 0 ? n : 2 * n;
            Map<List<Integer>, Integer> follows = new HashMap<>();
            for (int round = 0; round < block; round++) {
                int[] order = BenchRunner.order(n, round);
                assertThat(order).as("round %d of %d contenders", round, n)
                        .containsExactlyInAnyOrder(IntStream.range(0, n).toArray());
                for (int k = 1; k < n; k++) {
                    follows.merge(List.of(order[k - 1], order[k]), 1, Integer::sum);
                }
            }
            assertThat(follows).as("ordered pairs of %d contenders", n).hasSize(n * (n - 1));
            assertThat(follows.values()).as("times each pair occurs, %d contenders", n).containsOnly(n % 2 == 0 ? 1 : 2);
        }
    }

    @Test
    void theMedianIsTheMiddleValueOrTheMeanOfTheTwoMiddleOnes() {
        assertThat(BenchRunner.median(new double[] {3, 1, 2})).isEqualTo(2);
        assertThat(BenchRunner.median(new double[] {0.9, 0.7})).isEqualTo(0.8);
        assertThat(BenchRunner.median(new double[] {5})).isEqualTo(5);
    }

    @Test
    void ratiosSettleWithinATenthOfTheirMedianLeavingOutOneOutlierEachWayFromFiveRepeats() {
        assertThat(BenchRunner.settled(new double[] {0.84, 0.80, 0.88})).isTrue();
        assertThat(BenchRunner.settled(new double[] {0.81, 0.75, 0.95})).as("the issue's etcd row").isFalse();
        assertThat(BenchRunner.settled(new double[] {0.81, 0.75, 0.95, 0.82, 0.80})).isTrue();
        assertThat(BenchRunner.settled(new double[] {0.70, 0.90, 0.70, 0.90, 0.70, 0.90})).isFalse();
        assertThat(BenchRunner.settled(new double[] {1.0})).isTrue();
    }

    @Test
    void repeatsAreOneToTwenty() {
        assertThat(new BenchRunner(1, 1, 1, 20, true).repeats()).isEqualTo(20);
        assertThatThrownBy(() -> new BenchRunner(1, 1, 1, 0, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("repeats must be between 1 and 20, got 0");
    }
}
