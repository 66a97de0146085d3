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
            await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(30)).until(() -> lease.renewals.get() == atRelease);
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

    @Test
    void aRenewalStuckOnItsServerDelaysNoOtherLeaseOnASingleThreadedWatchdog() {
        java.util.concurrent.CountDownLatch thaw = new java.util.concurrent.CountDownLatch(1);
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) {
            FakeLease stalled = new FakeLease(MonotonicClock.system(), Duration.ofMillis(300), FencingListener.NONE) {
                @Override
                protected boolean doRenew(Duration ttl) {
                    try {
                        thaw.await(); // a server that never answers
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return false;
                }
            };
            FakeLease healthy = new FakeLease(MonotonicClock.system(), Duration.ofMillis(300), FencingListener.NONE);
            stalled.startRenewal(watchdog, Duration.ofMillis(300));
            healthy.startRenewal(watchdog, Duration.ofMillis(300));

            await().atMost(Duration.ofSeconds(5)).until(stalled::isLost); // its renewal never answered before expiry
            int renewed = healthy.renewals.get();
            await().atMost(Duration.ofSeconds(5)).until(() -> healthy.renewals.get() >= renewed + 5);
            assertThat(healthy.isValid()).isTrue();
            healthy.release();
        } finally {
            thaw.countDown();
        }
    }

    @Test
    void anErrorInARenewalMarksTheLeaseLostAndTellsTheListener() {
        java.util.concurrent.atomic.AtomicReference<Throwable> reported = new java.util.concurrent.atomic.AtomicReference<>();
        FencingListener listener = new FencingListener() {
            @Override
            public void onLost(dev.fencing.core.Lease lease, String reason, Throwable cause) {
                reported.set(cause);
            }
        };
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) {
            FakeLease broken = new FakeLease(MonotonicClock.system(), Duration.ofSeconds(30), listener) {
                @Override
                protected boolean doRenew(Duration ttl) {
                    throw new AssertionError("a bug in the renewal");
                }
            };
            broken.startRenewal(watchdog, Duration.ofMillis(30));
            await().atMost(Duration.ofSeconds(5)).until(() -> reported.get() != null);
            assertThat(reported.get()).isInstanceOf(AssertionError.class).hasMessage("a bug in the renewal");
            assertThat(broken.isLost()).isTrue();
            assertThat(watchdog.watchedCount()).isZero();
        }
    }
}
