package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The back-off between runs refused with a serialization failure. A contract run on a busy CI
 * machine had a writer lose ten runs in a row when the pause was at most {@code attempt}
 * milliseconds (55 ms in all): the pauses must grow, so that a herd of waiters on one row spreads
 * out, and stay short enough that the caller is not stalled.
 */
class TransactionsTest {

    @Test
    void thePauseBoundDoublesUpToItsCap() {
        assertThat(IntStream.rangeClosed(1, 8).map(Transactions::backoffBound).toArray())
                .containsExactly(2, 4, 8, 16, 32, 64, 64, 64);
        assertThat(Transactions.backoffBound(Integer.MAX_VALUE)).isEqualTo(Transactions.MAX_BACKOFF_MILLIS);
    }

    @Test
    void allRunsTogetherMayWaitLongEnoughToSpreadAHerdButNotStallTheCaller() {
        int total = IntStream.range(1, Transactions.SERIALIZATION_ATTEMPTS).map(Transactions::backoffBound).sum();
        assertThat(total).as("sum of the pause bounds, ms").isBetween(500, 2_000);
    }
}
