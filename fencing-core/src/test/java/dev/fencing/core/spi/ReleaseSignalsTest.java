package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReleaseSignalsTest {

    private final ReleaseSignals signals = new ReleaseSignals();

    @Test
    void aSignalSentAfterRegistrationIsNotMissedEvenBeforeTheWait() throws Exception {
        try (ReleaseSignals.Registration registration = signals.register("r")) {
            signals.signal("r");
            assertThat(registration.await(TimeUnit.SECONDS.toNanos(30))).isTrue();
            assertThat(registration.await(TimeUnit.MILLISECONDS.toNanos(10))).as("consumed").isFalse();
        }
        assertThat(signals.hasWaiters("r")).isFalse();
        assertThat(signals.wakeUps()).isEqualTo(1);
    }

    @Test
    void aSignalWakesAWaitingThread() throws Exception {
        try (ReleaseSignals.Registration registration = signals.register("r")) {
            CompletableFuture<Boolean> woken = CompletableFuture.supplyAsync(() -> {
                try {
                    return registration.await(TimeUnit.SECONDS.toNanos(60));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            signals.signal("other");
            signals.signal("r");
            assertThat(woken.get(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void sleepersCountOnlyThreadsParkedInAwait() throws Exception {
        try (ReleaseSignals.Registration registration = signals.register("r")) {
            assertThat(signals.waiters("r")).isEqualTo(1);
            assertThat(signals.sleepers("r")).as("registered, not asleep").isZero();
            CompletableFuture<Boolean> woken = CompletableFuture.supplyAsync(() -> {
                try {
                    return registration.await(TimeUnit.SECONDS.toNanos(60));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> signals.sleepers("r") == 1);
            signals.signal("r");
            assertThat(woken.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(signals.sleepers("r")).isZero();
        }
        assertThat(signals.sleepers("r")).isZero();
    }

    @Test
    void signalsWithoutWaitersCostNothing() {
        signals.signal("nobody");
        assertThat(signals.wakeUps()).isZero();
        assertThat(signals.hasWaiters("nobody")).isFalse();
    }
}
