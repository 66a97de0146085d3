package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AbstractLeaseTest {

    private final ManualClock clock = new ManualClock();
    private final List<String> events = new ArrayList<>();
    private final FencingListener listener = new FencingListener() {
        @Override
        public void onRenewed(Lease lease) {
            events.add("renewed");
        }

        @Override
        public void onReleased(Lease lease) {
            events.add("released");
        }

        @Override
        public void onLost(Lease lease, String reason, Throwable cause) {
            events.add("lost: " + reason);
        }
    };

    /** A release without a clear answer (a silent server, a closed client) still ends the lease with one event. */
    @Test
    void aLeaseNamesItsLockItsTokenAndItsState() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);

        assertThat(lease.resource()).isEqualTo("r");
        assertThat(lease.toString()).startsWith("FakeLease[").contains("r", "7", "ACTIVE", "10000 ms left");
    }

    @Test
    void aReleaseThatGetsNoClearAnswerEndsTheLeaseAsLostOnce() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lease.releaseFailure.set(new IllegalStateException("no answer"));
        assertThatThrownBy(lease::release).isInstanceOf(IllegalStateException.class);
        lease.close(); // nothing more to end
        assertThat(events).hasSize(1).allMatch(event -> event.startsWith("lost: the release got no clear answer"));

        FakeLease lostFirst = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lostFirst.lose("taken over");
        lostFirst.releaseFailure.set(new IllegalStateException("no answer"));
        assertThatThrownBy(lostFirst::release).isInstanceOf(IllegalStateException.class);
        assertThat(events).as("a loss reported before is not reported again").hasSize(2).last()
                .isEqualTo("lost: taken over");
    }

    @Test
    void validityIsCountedOnTheMonotonicClock() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(10));
        clock.advance(Duration.ofSeconds(4));
        assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(6));
        assertThat(lease.isValid()).isTrue();
        clock.advance(Duration.ofSeconds(6));
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isZero();
    }

    @Test
    void aProvidersEarlierBoundEndsValidityBeforeTheTtlAndARenewalDoesNotLiftIt() {
        long bound = clock.nanoTime() + Duration.ofSeconds(3).toNanos();
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener) {
            @Override
            protected long boundedDeadline(long deadlineNanos) {
                return bound - deadlineNanos < 0 ? bound : deadlineNanos;
            }
        };
        assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(3));
        clock.advance(Duration.ofSeconds(2));
        lease.renew(Duration.ofSeconds(10));
        assertThat(lease.remaining()).as("renewed to 10 s, bounded at 3 s from the start").isEqualTo(Duration.ofSeconds(1));
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ofSeconds(2))).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("only 1000 ms left");
        clock.advance(Duration.ofSeconds(1));
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isZero();
    }

    @Test
    void requireValidForRefusesWhenTooLittleTimeIsLeft() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        assertThat(lease.requireValidFor(Duration.ofSeconds(9))).isEqualTo(lease.token());
        clock.advance(Duration.ofSeconds(2));
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ofSeconds(9)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("only 8000 ms left, the side effect needs 9000 ms");
        clock.advance(Duration.ofSeconds(9));
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ZERO)).hasMessageContaining("expired 1000 ms ago");
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    /** Exactly at the deadline the lease is no longer valid, so no margin, not even zero, hands out its token. */
    @Test
    void atTheDeadlineNoMarginHandsOutTheToken() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        clock.advance(Duration.ofSeconds(10));
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ZERO)).isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("expired 0 ms ago");
        clock.advance(Duration.ofNanos(-1));
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.requireValidFor(Duration.ZERO)).isEqualTo(lease.token());
        assertThat(lease.requireValidFor(Duration.ofNanos(1))).as("exactly the margin left").isEqualTo(lease.token());
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ofNanos(2))).isInstanceOf(LeaseLostException.class);
    }

    /** The watchdog's renewal finds the lock held by someone else: the lease is lost at once, and said so once. */
    @Test
    void aWatchdogRenewalThatFindsTheLockGoneEndsTheLease() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lease.held.set(false);
        lease.renewFromWatchdog(Duration.ofSeconds(10));
        assertThat(lease.isValid()).as("valid by the clock, but the lock is gone").isFalse();
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ZERO)).isInstanceOf(LeaseLostException.class);
        assertThat(events).containsExactly("lost: the watchdog's renewal found the lock no longer held by owner "
                + lease.ownerId());
        lease.renewFromWatchdog(Duration.ofSeconds(10));
        assertThat(lease.renewals).as("no renewal after the loss").hasValue(1);
        assertThat(events).hasSize(1);
    }

    /** A watchdog renewal the server accepts moves the deadline and is reported as a renewal, not a loss. */
    @Test
    void aWatchdogRenewalThatTheServerAcceptsMovesTheDeadline() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        clock.advance(Duration.ofSeconds(8));
        lease.renewFromWatchdog(Duration.ofSeconds(10));
        assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(10));
        assertThat(events).containsExactly("renewed");
    }

    /** A release that finds the lock gone is a loss: the caller hears it, and so does the listener, once. */
    @Test
    void aReleaseThatFindsTheLockGoneIsReportedAsALoss() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lease.held.set(false);
        assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
        assertThat(events).hasSize(1).allMatch(event -> event.startsWith("lost: "));
    }

    /** A failed renewal is retried while time is left; one that fails after the deadline ends the lease. */
    @Test
    void aWatchdogRenewalThatFailsEndsTheLeaseOnlyOnceItExpired() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lease.renewFailure.set(new IllegalStateException("server busy"));
        clock.advance(Duration.ofSeconds(9));
        lease.renewFromWatchdog(Duration.ofSeconds(10));
        assertThat(lease.isValid()).isTrue();
        assertThat(events).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        lease.renewFromWatchdog(Duration.ofSeconds(10));
        assertThat(events).containsExactly("lost: the watchdog could not renew it before it expired");
    }

    /** A renewal that hangs (a silent server) cannot keep the lease: past its deadline it is lost. */
    @Test
    void aHungWatchdogRenewalPastTheDeadlineEndsTheLease() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        clock.advance(Duration.ofMillis(9_999));
        lease.renewalStillInFlight();
        assertThat(events).as("still time left").isEmpty();
        clock.advance(Duration.ofMillis(1));
        lease.renewalStillInFlight();
        assertThat(events).containsExactly("lost: the watchdog's renewal did not answer before the lease expired");
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ZERO)).hasMessageContaining("found lost earlier");
    }

    /** The held time reported with a loss is the time the lease was valid, never more. */
    @Test
    void theHeldTimeOfALossIsTheTimeSinceTheGrant() {
        List<Duration> held = new ArrayList<>();
        FencingListener timing = new FencingListener() {
            @Override
            public void onLost(Lease lease, String reason, Throwable cause, Duration heldFor) {
                held.add(heldFor);
            }
        };
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), timing);
        clock.advance(Duration.ofSeconds(3));
        lease.lose("taken over");
        assertThat(held).containsExactly(Duration.ofSeconds(3));
    }

    @Test
    void renewMovesTheDeadlineFromTheRequestTime() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        clock.advance(Duration.ofSeconds(8));
        lease.renew(Duration.ofSeconds(10));
        assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(10));
        assertThat(events).containsExactly("renewed");
    }

    /**
     * Two renewals of one lease at once: the server keeps the TTL of the one it ran last, so the
     * local deadline must be that one's too — a shorter renewal run last on the server must not
     * be overwritten locally by a longer one that finished later.
     */
    @Test
    void concurrentRenewalsLeaveTheDeadlineOfTheOneTheServerRanLast() throws Exception {
        java.util.concurrent.CountDownLatch longOneOnServer = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch letLongOneReturn = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Duration> serverTtl = new java.util.concurrent.atomic.AtomicReference<>();
        AbstractLease lease = new AbstractLease(dev.fencing.core.FencingToken.of("r", 7), OwnerIds.random(),
                System.nanoTime(), Duration.ofSeconds(10), dev.fencing.core.MonotonicClock.system(), listener) {
            @Override
            protected boolean doRenew(Duration ttl) {
                serverTtl.set(ttl);
                if (ttl.equals(Duration.ofSeconds(60))) {
                    longOneOnServer.countDown();
                    try {
                        letLongOneReturn.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return true;
            }

            @Override
            protected boolean doRelease() {
                return true;
            }
        };
        Thread longRenewal = new Thread(() -> lease.renew(Duration.ofSeconds(60)));
        longRenewal.start();
        longOneOnServer.await();
        Thread shortRenewal = new Thread(() -> lease.renew(Duration.ofSeconds(1)));
        shortRenewal.start();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                !shortRenewal.isAlive() || shortRenewal.getState() == Thread.State.BLOCKED
                        || shortRenewal.getState() == Thread.State.WAITING);
        letLongOneReturn.countDown();
        longRenewal.join(5000);
        shortRenewal.join(5000);
        assertThat(lease.remaining()).as("the server's TTL is %s", serverTtl.get())
                .isLessThanOrEqualTo(serverTtl.get());
    }

    @Test
    void aRenewThatFindsAnotherOwnerMarksTheLeaseLost() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lease.held.set(false);
        assertThatThrownBy(() -> lease.renew(Duration.ofSeconds(10)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("no longer held");
        assertThat(lease.isValid()).isFalse();
        assertThat(events).singleElement().asString().startsWith("lost");
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ZERO)).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class).hasMessageContaining("found lost");
        assertThat(lease.releases.get()).as("the provider still frees its resources").isEqualTo(1);
    }

    @Test
    void releaseIsOnceCloseIsIdempotent() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lease.close();
        lease.close();
        assertThat(lease.releases.get()).isEqualTo(1);
        assertThatThrownBy(lease::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("already released");
        assertThatThrownBy(() -> lease.renew(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class);
        assertThat(events).containsExactly("released");
    }

    @Test
    void releasingALockThatExpiredSaysSo() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), listener);
        lease.held.set(false);
        assertThatThrownBy(lease::release)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("expired or was taken over");
    }

    @Test
    void theWatchdogRetriesAFailedRenewalAndMarksTheLeaseLostOnlyOnceExpired() {
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(3), listener);
        lease.renewFailure.set(new IllegalStateException("connection refused"));
        lease.renewFromWatchdog(Duration.ofSeconds(3));
        assertThat(lease.isValid()).isTrue();
        clock.advance(Duration.ofSeconds(3));
        lease.renewFromWatchdog(Duration.ofSeconds(3));
        assertThat(events).singleElement().asString().contains("could not renew it before it expired");
        lease.renewFromWatchdog(Duration.ofSeconds(3));
        assertThat(lease.renewals.get()).as("no renewal once lost").isEqualTo(2);
    }

    @Test
    void aListenerThatThrowsDoesNotBreakTheLease() {
        FencingListener throwing = new FencingListener() {
            @Override
            public void onReleased(Lease lease) {
                throw new IllegalStateException("listener bug");
            }
        };
        FakeLease lease = new FakeLease(clock, Duration.ofSeconds(10), dev.fencing.core.internal.SafeListener.of(throwing));
        lease.release();
        assertThat(lease.releases.get()).isEqualTo(1);
    }

    /** The provider's bookkeeping of renewing leases (the when-stopped callback) ends exactly once, however the lease ends. */
    @Test
    void theRenewalIsStoppedOnceWhenTheLeaseIsLostReleasedOrAlreadyOver() {
        LeaseWatchdog watchdog = LeaseWatchdog.shared();
        Duration ttl = Duration.ofSeconds(60); // no tick comes during the test

        java.util.concurrent.atomic.AtomicInteger lostStopped = new java.util.concurrent.atomic.AtomicInteger();
        FakeLease lost = new FakeLease(clock, ttl, listener);
        lost.startRenewal(watchdog, ttl, lostStopped::incrementAndGet, this, ttl.dividedBy(3));
        assertThat(lost.isLost()).isFalse();
        assertThat(lostStopped).hasValue(0);
        lost.lose("connection dropped");
        assertThat(lost.isLost()).isTrue();
        assertThat(lostStopped).hasValue(1);
        lost.renewFromWatchdog(ttl);
        lost.close();
        assertThat(lostStopped).hasValue(1);
        assertThat(lost.renewals).hasValue(0);

        java.util.concurrent.atomic.AtomicInteger releasedStopped = new java.util.concurrent.atomic.AtomicInteger();
        FakeLease released = new FakeLease(clock, ttl, listener);
        released.startRenewal(watchdog, ttl, releasedStopped::incrementAndGet, this, ttl.dividedBy(3));
        released.close();
        released.renewFromWatchdog(ttl);
        assertThat(releasedStopped).hasValue(1);
        assertThat(released.renewals).hasValue(0);

        java.util.concurrent.atomic.AtomicInteger lateStopped = new java.util.concurrent.atomic.AtomicInteger();
        FakeLease late = new FakeLease(clock, ttl, listener);
        late.close();
        late.startRenewal(watchdog, ttl, lateStopped::incrementAndGet, this, ttl.dividedBy(3));
        assertThat(lateStopped).as("renewal started after the release stops at once").hasValue(1);
    }
}
