package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The early warning of {@link FencingListener#onRenewalsFailing}: when, how often, and never for a healthy lease. */
class RenewalWarningTest {

    private record Warning(Duration remaining, @Nullable Throwable lastFailure) {}

    private final List<Warning> warnings = new CopyOnWriteArrayList<>();
    private final List<String> losses = new CopyOnWriteArrayList<>();
    private final FencingListener listener = new FencingListener() {
        @Override
        public void onRenewalsFailing(Lease lease, Duration remaining, @Nullable Throwable lastFailure) {
            warnings.add(new Warning(remaining, lastFailure));
        }

        @Override
        public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
            losses.add(reason);
        }
    };

    @Test
    void failingRenewalsWarnOnceWithinTheMarginBeforeTheLoss() {
        Duration ttl = Duration.ofSeconds(3);
        Duration margin = Duration.ofMillis(1500);
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) {
            FakeLease lease = new FakeLease(MonotonicClock.system(), ttl, listener);
            IllegalStateException down = new IllegalStateException("server down");
            lease.renewFailure.set(down);
            lease.startRenewal(watchdog, ttl, () -> {}, this, margin);

            await().atMost(Duration.ofSeconds(30)).until(() -> !losses.isEmpty());
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0).remaining()).isPositive().isLessThanOrEqualTo(margin);
            assertThat(warnings.get(0).lastFailure()).isSameAs(down);
        }
    }

    @Test
    void aHealthyLeaseIsNeverWarnedAboutAndASuccessEndsAStretch() {
        Duration ttl = Duration.ofMillis(600);
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) {
            FakeLease lease = new FakeLease(MonotonicClock.system(), ttl, listener);
            lease.startRenewal(watchdog, ttl, () -> {}, this, ttl.dividedBy(3));
            await().atMost(Duration.ofSeconds(30)).until(() -> lease.renewals.get() >= 6);
            assertThat(warnings).as("warnings of a lease renewed every time").isEmpty();

            // a margin longer than the TTL: the first failed renewal warns at once
            Duration longer = Duration.ofSeconds(3);
            FakeLease failing = new FakeLease(MonotonicClock.system(), longer, listener);
            failing.renewFailure.set(new IllegalStateException("blip"));
            failing.startRenewal(watchdog, longer, () -> {}, this, Duration.ofSeconds(5));
            await().atMost(Duration.ofSeconds(30)).until(() -> warnings.size() == 1);
            failing.renewFailure.set(null); // the next renewal gets through: the stretch ends
            int renewed = failing.renewals.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> failing.renewals.get() >= renewed + 1 && failing.isValid());
            failing.renewFailure.set(new IllegalStateException("again"));
            await().atMost(Duration.ofSeconds(30)).until(() -> warnings.size() == 2 || !losses.isEmpty());
            assertThat(warnings).hasSize(2);
            assertThat(warnings.get(1).lastFailure()).hasMessage("again");
            lease.release();
            failing.release();
        }
    }
}
