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

    /** On a manual clock, with renewals driven by hand: exactly when the warning comes, and when not. */
    @Test
    void theWarningComesAtTheMarginOncePerStretchOfFailures() {
        ManualClock clock = new ManualClock();
        Duration ttl = Duration.ofHours(1);
        Duration margin = Duration.ofMinutes(10);
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) { // ticks every 20 min: never during the test
            FakeLease lease = new FakeLease(clock, ttl, listener);
            lease.startRenewal(watchdog, ttl, () -> {}, this, margin);
            IllegalStateException down = new IllegalStateException("server down");
            lease.renewFailure.set(down);

            clock.advance(Duration.ofMinutes(10));
            lease.renewFromWatchdog(ttl); // 50 min left: no warning
            clock.advance(Duration.ofMinutes(40).minusNanos(1));
            lease.renewFromWatchdog(ttl); // the margin and 1 ns left
            assertThat(warnings).isEmpty();

            clock.advance(Duration.ofNanos(1));
            lease.renewFromWatchdog(ttl); // exactly the margin left
            assertThat(warnings).containsExactly(new Warning(margin, down));
            lease.renewalStillInFlight();
            lease.renewFromWatchdog(ttl);
            assertThat(warnings).as("one warning per stretch").hasSize(1);

            lease.renewFailure.set(null);
            lease.renewFromWatchdog(ttl); // a renewal gets through: the deadline moves, the stretch ends
            assertThat(lease.remaining()).isEqualTo(ttl);
            clock.advance(Duration.ofMinutes(55));
            lease.renewalStillInFlight(); // 5 min left, a renewal stuck on its server
            assertThat(warnings).hasSize(2);
            assertThat(warnings.get(1)).isEqualTo(new Warning(Duration.ofMinutes(5), null));
            assertThat(losses).isEmpty();
            lease.release();
            lease.renewalStillInFlight();
            assertThat(warnings).as("nothing after the release").hasSize(2);
        }
    }

    /** The timer tells the listener once the margin is reached, with no renewal failing at that moment. */
    @Test
    void theTimerWarnsWhenTheMarginIsReachedAfterAFailure() {
        ManualClock clock = new ManualClock();
        Duration ttl = Duration.ofHours(1);
        Duration margin = ttl.minusMillis(50); // the timer fires 50 ms (real) after the start
        try (LeaseWatchdog watchdog = LeaseWatchdog.create(1)) {
            FakeLease lease = new FakeLease(clock, ttl, listener);
            lease.renewFailure.set(new IllegalStateException("server down"));
            lease.startRenewal(watchdog, ttl, () -> {}, this, margin);
            lease.renewFromWatchdog(ttl); // failed with the whole TTL left: not yet
            assertThat(warnings).isEmpty();
            clock.advance(Duration.ofSeconds(1)); // inside the margin now, by the lease's clock
            await().atMost(Duration.ofSeconds(30)).until(() -> warnings.size() == 1);
            assertThat(warnings.get(0).remaining()).isEqualTo(ttl.minusSeconds(1));
            lease.release();
        }
    }

    @Test
    void pastDeadlineIsTrueFromTheDeadlineOnWhateverTheState() {
        ManualClock clock = new ManualClock();
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        clock.advance(Duration.ofSeconds(10).minusNanos(1));
        assertThat(lease.pastDeadline()).isFalse();
        clock.advance(Duration.ofNanos(1));
        assertThat(lease.pastDeadline()).isTrue();
        lease.release(); // released: the state does not matter
        assertThat(lease.pastDeadline()).isTrue();
    }
}
