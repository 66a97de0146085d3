package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.MonotonicClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseWatchdogTest {

    private static long watchdogThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("fencing-watchdog-") && t.isAlive())
                .count();
    }

    @Test
    void renewsEveryThirdOfTheTtlUntilReleased() {
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) {
            FakeLease lease = new FakeLease(MonotonicClock.system(), Duration.ofMillis(300), FencingListener.NONE);
            lease.startRenewal(watchdog, Duration.ofMillis(300));
            assertThat(watchdog.watchedCount()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(5)).until(() -> lease.renewals.get() >= 3);
            assertThat(lease.isValid()).isTrue();

            lease.release();
            assertThat(watchdog.watchedCount()).isZero();
            int atRelease = lease.renewals.get();
            await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(() -> lease.renewals.get() == atRelease);
        }
    }

    @Test
    void aLostRenewalStopsTheScheduleAndNoExceptionEscapes() {
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) {
            FakeLease lease = new FakeLease(MonotonicClock.system(), Duration.ofMillis(300), FencingListener.NONE);
            lease.renewFailure.set(new IllegalStateException("server gone"));
            lease.startRenewal(watchdog, Duration.ofMillis(300));
            await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid() && watchdog.watchedCount() == 0);
            assertThat(lease.isLost()).isTrue();
        }
    }

    @Test
    void closingAWatchdogEndsItsThreads() throws Exception {
        long before = watchdogThreads();
        LeaseWatchdog watchdog = LeaseWatchdog.create(2);
        FakeLease lease = new FakeLease(MonotonicClock.system(), Duration.ofSeconds(30), FencingListener.NONE);
        lease.startRenewal(watchdog, Duration.ofSeconds(30));
        assertThat(watchdogThreads()).isGreaterThan(before);
        watchdog.close();
        assertThat(watchdog.awaitTermination(Duration.ofSeconds(5))).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> watchdogThreads() == before);
    }

    @Test
    void manyLeasesOnTheSharedWatchdogLeaveNoThreadsBehind() {
        LeaseWatchdog shared = LeaseWatchdog.shared();
        for (int i = 0; i < 200; i++) {
            FakeLease lease = new FakeLease(MonotonicClock.system(), Duration.ofSeconds(30), FencingListener.NONE);
            lease.startRenewal(shared, Duration.ofSeconds(30));
            lease.release();
        }
        assertThat(shared.watchedCount()).isZero();
        assertThat(watchdogThreads()).isLessThanOrEqualTo(2 + 2);
        assertThatThrownBy(shared::close).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> LeaseWatchdog.create(0)).hasMessageContaining("between 1 and 16, got 0");
    }
}
