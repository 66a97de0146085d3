package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The session bound's arithmetic, in milliseconds of a made-up clock: 4 s sessions, 2 s ticks (1 s touch lag). */
class SessionBoundTest {

    private static final long MS = 1_000_000;
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final long DRIFT = 40 * MS; // 1% of the session timeout

    private final SessionBound bound = new SessionBound(7, SESSION, Duration.ofSeconds(2), 1_000 * MS);

    @Test
    void aNewSessionLastsItsTimeoutFromBeforeItWasAskedFor() {
        assertThat(bound.sessionId()).isEqualTo(7);
        assertThat(bound.deadline()).isEqualTo(5_000 * MS - DRIFT);
    }

    @Test
    void aConfirmationCountsOnlyOnceALaterOneStartsHalfATickAfterItWasAnswered() {
        bound.confirmed(2_000 * MS, 2_100 * MS);
        assertThat(bound.deadline()).as("the leader may not have heard of it yet").isEqualTo(5_000 * MS - DRIFT);

        bound.confirmed(3_000 * MS, 3_050 * MS); // 900 ms after the first was answered: less than the lag
        assertThat(bound.deadline()).isEqualTo(5_000 * MS - DRIFT);

        bound.confirmed(3_100 * MS, 3_150 * MS); // 1 000 ms after: the first was heard
        assertThat(bound.deadline()).isEqualTo(6_000 * MS - DRIFT);

        bound.confirmed(4_200 * MS, 4_250 * MS); // proves the second and the third
        assertThat(bound.deadline()).isEqualTo(7_100 * MS - DRIFT);
    }

    @Test
    void answersOutOfOrderKeepTheLatestProvenStart() {
        bound.confirmed(2_500 * MS, 2_600 * MS);
        bound.confirmed(2_000 * MS, 2_700 * MS); // sent earlier, answered later
        bound.confirmed(3_800 * MS, 3_900 * MS);
        assertThat(bound.deadline()).isEqualTo(6_500 * MS - DRIFT);
    }

    @Test
    void aConfirmationOlderThanWhatIsProvenChangesNothing() {
        bound.confirmed(2_000 * MS, 2_100 * MS);
        bound.confirmed(3_200 * MS, 3_300 * MS);
        long proven = bound.deadline();
        bound.confirmed(1_500 * MS, 3_400 * MS); // a slow answer to an old request
        assertThat(bound.deadline()).isEqualTo(proven);
    }

    /** A reconnect to a server with a lower maxSessionTimeout: the leader ends the session on the new timeout. */
    @Test
    void aShorterTimeoutNegotiatedAtAReconnectShortensTheBoundAtOnce() {
        SessionBound long40 = new SessionBound(7, Duration.ofSeconds(40), Duration.ofSeconds(20), 1_000 * MS);
        assertThat(long40.deadline()).isEqualTo(41_000 * MS - 400 * MS);

        long40.renegotiated(Duration.ofSeconds(2), Duration.ofSeconds(1));
        assertThat(long40.sessionTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(long40.deadline()).as("counted with the new timeout, the old margin kept")
                .isEqualTo(3_000 * MS - 400 * MS);

        long40.confirmed(2_000 * MS, 2_100 * MS);
        long40.confirmed(2_600 * MS, 2_650 * MS); // the new tick's lag (500 ms) proves the first
        assertThat(long40.deadline()).isEqualTo(4_000 * MS - 400 * MS);
    }

    @Test
    void aLongerTimeoutNegotiatedLaterDoesNotLengthenTheBound() {
        bound.renegotiated(Duration.ofSeconds(40), Duration.ofSeconds(20));
        assertThat(bound.sessionTimeout()).isEqualTo(SESSION);
        assertThat(bound.deadline()).isEqualTo(5_000 * MS - 400 * MS);
    }

    /**
     * Against the rule as first written (every unproven request looked at on each confirmation): in
     * order — one thread, requests answered in the order they were sent — the bound is the same at
     * every step; with answers out of order (many threads, slow requests) it is never later, and
     * catches up within half a tick. Either way the list stays short: it keeps no request another
     * one proves as well.
     */
    @Test
    void provingFromTheFrontMatchesTheFullRuleInOrderAndIsNeverLaterOutOfOrder() {
        java.util.Random random = new java.util.Random(48);
        for (boolean inOrder : new boolean[] {true, false}) {
            SessionBound fast = new SessionBound(7, SESSION, Duration.ofSeconds(2), 1_000 * MS);
            FullRule full = new FullRule(1_000 * MS, 1_000 * MS);
            long clock = 1_000 * MS;
            for (int i = 0; i < 20_000; i++) {
                clock += random.nextInt(3 * (int) MS);
                long start = inOrder ? clock : clock - random.nextInt(400 * (int) MS);
                long answered = clock + (inOrder ? 1 : random.nextInt(300 * (int) MS));
                fast.confirmed(start, answered);
                full.confirmed(start, answered);
                if (inOrder) {
                    assertThat(fast.deadline()).as("step %d in order", i).isEqualTo(full.deadline(SESSION, DRIFT));
                } else {
                    assertThat(fast.deadline()).as("step %d out of order", i).isLessThanOrEqualTo(full.deadline(SESSION, DRIFT));
                }
            }
            assertThat(fast.unprovenCount()).as(inOrder ? "in order" : "out of order").isLessThan(1_000);
        }
    }

    /** The rule as first written, the reference: every unproven request is looked at on each confirmation. */
    private static final class FullRule {
        private final long lag;
        private long heardStart;
        private final java.util.List<long[]> unproven = new java.util.ArrayList<>();

        FullRule(long createdFrom, long lag) {
            this.heardStart = createdFrom;
            this.lag = lag;
        }

        void confirmed(long start, long answered) {
            for (int i = unproven.size() - 1; i >= 0; i--) {
                long[] earlier = unproven.get(i);
                if (start - (earlier[1] + lag) >= 0) {
                    if (earlier[0] - heardStart > 0) { // clock readings compare by subtraction, as the provider's
                        heardStart = earlier[0];
                    }
                    unproven.remove(i);
                }
            }
            if (start - heardStart > 0) {
                unproven.add(new long[] {start, answered});
            }
        }

        long deadline(Duration session, long drift) {
            return heardStart + session.toNanos() - drift;
        }
    }

    @Test
    void theDriftMarginIsOnePercentAndAtLeastTenMilliseconds() {
        assertThat(SessionBound.driftMargin(Duration.ofSeconds(10))).isEqualTo(Duration.ofMillis(100));
        assertThat(SessionBound.driftMargin(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(10));
    }
}
