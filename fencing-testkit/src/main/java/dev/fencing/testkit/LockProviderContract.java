// Over 500 lines: one contract users extend by name; its round trips are LockProviderTransportContract already.
package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.ProviderClosedException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract every {@link LockProvider} passes. Extend it in the provider's module with one
 * small class that builds the provider against a real server. It runs the round trips of
 * {@link LockProviderTransportContract} and everything a provider does whatever carries its requests:
 * waits, interrupts, asynchronous acquires, races of release and renewal, closing, bad input.
 *
 * <p>Each test uses fresh resource names, so a shared server needs no cleaning. Waits are on
 * conditions (Awaitility), never fixed sleeps; the only fixed durations are lease TTLs.
 */
public abstract class LockProviderContract extends LockProviderTransportContract {

    @Test
    void ownerIdsAreUniquePerGrant() {
        String resource = resource("r");
        Lease first = provider.tryAcquire(resource, longLease()).orElseThrow();
        first.release();
        Lease second = provider.tryAcquire(resource, longLease()).orElseThrow();
        second.release();
        assertThat(second.ownerId()).isNotEqualTo(first.ownerId());
    }

    /**
     * Every lease ends in exactly one of released or lost, whichever way it ends, so metrics and
     * logs count each loss once: a release of a held lease; a release that finds the lease taken
     * over; a renewal that finds it taken over, then a release. A loss found late reports the time
     * the lease was valid, not the time until it was found.
     */
    @Test
    void everyLeaseEndsInExactlyOneOfReleasedOrLost() {
        Lease kept = provider.tryAcquire(resource("kept"), longLease()).orElseThrow();
        kept.release();

        String resource = resource("taken");
        Lease releasedLate = provider.tryAcquire(resource, ttl(shortTtl())).orElseThrow();
        LockProvider other = anotherProvider();
        Lease taker = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> other.tryAcquire(resource, ttl(shortTtl())), Optional::isPresent).orElseThrow();
        Lease renewedLate = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> provider.tryAcquire(resource, ttl(shortTtl())), Optional::isPresent).orElseThrow();
        Lease current = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> other.tryAcquire(resource, longLease()), Optional::isPresent).orElseThrow();

        assertThatThrownBy(releasedLate::release).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> renewedLate.renew(Duration.ofSeconds(60))).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(renewedLate::release).isInstanceOf(LeaseLostException.class);
        current.release();

        assertThat(events.endingsOf(kept)).containsExactly("released");
        assertThat(events.endingsOf(releasedLate)).as("a release that finds the lease taken over").hasSize(1)
                .allMatch(ending -> ending.startsWith("lost: "));
        assertThat(events.endingsOf(renewedLate)).as("a renewal that finds it taken over, then a release").hasSize(1)
                .allMatch(ending -> ending.startsWith("lost: "));
        assertThat(events.heldForOf(releasedLate)).as("the time a lease found lost late was valid")
                .hasValueSatisfying(held -> assertThat(held).isLessThanOrEqualTo(shortTtl()));
        assertThat(taker.isValid()).isFalse();
    }

    @Test
    void theWatchdogKeepsALongHolderAliveAndStopsWhenReleased() {
        String resource = resource("r");
        // at least 3 s: the watchdog renews every third of it, and each renewal must be answered before the
        // lease runs out; with a 600 ms TTL a busy machine's 400 ms round trip lost the lease, and with 1.5 s
        // (etcd: a 2 s server lease, renewals bounded by 500 ms) CI's loaded machine let the server lease
        // expire between renewals (the expiry is not what this test is about)
        Duration ttl = shortTtl().compareTo(Duration.ofSeconds(3)) < 0 ? Duration.ofSeconds(3) : shortTtl();
        LeaseOptions renewing = LeaseOptions.builder().ttl(ttl).autoRenew(true).build();
        Lease lease = provider.tryAcquire(resource, renewing).orElseThrow();
        LockProvider other = anotherProvider();

        Holds.throughout("the lock refused to another owner", ttl,
                () -> other.tryAcquire(resource, longLease()).isEmpty());
        // past its TTL only by renewals: two of them at least (every third of the TTL; waited for, not timed)
        await().atMost(ttl.multipliedBy(3)).until(() -> events.renewed() >= 2);
        assertThat(other.tryAcquire(resource, longLease())).as("the lock refused to another owner").isEmpty();
        assertThat(lease.isValid()).isTrue();

        lease.release();
        int renewalsAtRelease = events.renewed();
        try (Lease next = other.tryAcquire(resource, longLease()).orElseThrow()) {
            Holds.throughout("no renewal after the release", ttl, () -> events.renewed() == renewalsAtRelease);
            assertThat(next.isValid()).isTrue();
        }
        assertThat(events.lost()).isZero();
    }

    @Test
    void acquireGivesUpAfterTheWaitTimeout() throws Exception {
        String resource = resource("r");
        try (Lease held = provider.tryAcquire(resource, longLease()).orElseThrow()) {
            LeaseOptions briefWait = LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofMillis(300));
            assertThatThrownBy(() -> anotherProvider().acquire(resource, briefWait))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(resource)
                    .hasMessageContaining("wait timeout");
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void anInterruptedAcquireThrowsAndHoldsNothing() throws Exception {
        String resource = resource("r");
        Lease held = provider.tryAcquire(resource, longLease()).orElseThrow();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        LockProvider other = anotherProvider();
        Thread waiter = new Thread(() -> {
            try {
                other.acquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofSeconds(60)))
                        .close();
                outcome.set(new AssertionError("acquire returned a lease"));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING
                || waiter.getState() == Thread.State.WAITING);
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        held.release();
        try (Lease free = provider.tryAcquire(resource, longLease()).orElseThrow()) {
            assertThat(free.token().isNewerThan(held.token())).isTrue();
        }
    }

    /**
     * Wherever an interrupt lands — in a server round trip, a subscription, the backoff sleep, or
     * just after a grant — the acquire either returns a lease or throws
     * {@link InterruptedException}, and no lock is left behind: whatever an interrupted attempt
     * may have taken on the server is given back.
     */
    @Test
    void anInterruptAtAnyMomentOfAnAcquireLeavesNoLockBehind() throws Exception {
        String resource = resource("r");
        LeaseOptions waiting = LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofSeconds(30));
        java.util.Random random = new java.util.Random(11);
        for (int round = 0; round < 20; round++) {
            // every other round the lock is free, so the interrupt can also hit a successful attempt
            Lease held = round % 2 == 0 ? provider.tryAcquire(resource, longLease()).orElseThrow() : null;
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread acquirer = new Thread(() -> {
                try (Lease lease = provider.acquire(resource, waiting)) {
                    outcome.set(lease.token());
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            acquirer.start();
            java.util.concurrent.locks.LockSupport.parkNanos(random.nextInt(3_000_000));
            acquirer.interrupt();
            acquirer.join(TimeUnit.SECONDS.toMillis(20));
            String described = "round " + round + (held == null ? " (lock free)" : " (lock held)");
            if (held == null) {
                assertThat(outcome.get()).as(described).isInstanceOfAny(FencingToken.class, InterruptedException.class);
            } else {
                assertThat(outcome.get()).as(described).isInstanceOf(InterruptedException.class);
                held.release();
            }
            await(described + ": the lock is free again").atMost(Duration.ofSeconds(10)).until(() -> {
                Optional<Lease> free = provider.tryAcquire(resource, longLease());
                free.ifPresent(Lease::release);
                return free.isPresent();
            });
        }
    }

    @Test
    void acquireAsyncCompletesWhenTheHolderReleases() throws Exception {
        String resource = resource("r");
        Lease held = provider.tryAcquire(resource, longLease()).orElseThrow();
        CompletableFuture<Lease> future = anotherProvider()
                .acquireAsync(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofSeconds(30)));
        Holds.throughout("the acquire waiting", Duration.ofMillis(200), () -> !future.isDone());
        held.release();
        try (Lease next = future.get(30, TimeUnit.SECONDS)) {
            assertThat(next.token().isNewerThan(held.token())).isTrue();
        }
    }

    @Test
    void acquireAsyncOfAFreeLockCompletesAndATimeoutFailsTheFuture() throws Exception {
        String resource = resource("r");
        try (Lease lease = provider.acquireAsync(resource, longLease()).get(30, TimeUnit.SECONDS)) {
            CompletableFuture<Lease> refused = anotherProvider()
                    .acquireAsync(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofMillis(200)));
            assertThatThrownBy(() -> refused.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(LockUnavailableException.class);
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void aCancelledAsyncAcquireLeavesNothingHeld() {
        String resource = resource("r");
        Lease held = provider.tryAcquire(resource, longLease()).orElseThrow();
        CompletableFuture<Lease> future = anotherProvider()
                .acquireAsync(resource, LeaseOptions.ofTtl(Duration.ofSeconds(60)).withWaitTimeout(Duration.ofSeconds(30)));
        future.cancel(true);
        held.release();
        Lease free = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> provider.tryAcquire(resource, longLease()), Optional::isPresent).orElseThrow();
        free.release();
    }

    @Test
    void independentResourcesDoNotBlockEachOther() {
        try (Lease a = provider.tryAcquire(resource("a"), longLease()).orElseThrow();
                Lease b = provider.tryAcquire(resource("b"), longLease()).orElseThrow()) {
            assertThat(a.isValid()).isTrue();
            assertThat(b.isValid()).isTrue();
            assertThat(a.token().resource()).isNotEqualTo(b.token().resource());
        }
    }

    @Test
    void requireValidForReturnsTheTokenOnlyWhileEnoughTimeIsLeft() {
        String resource = resource("r");
        Lease lease = provider.tryAcquire(resource, ttl(Duration.ofSeconds(30))).orElseThrow();
        FencingToken token = lease.requireValidFor(Duration.ofSeconds(1));
        assertThat(token).isEqualTo(lease.token());
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ofMinutes(5)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("left");
        lease.release();
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void releasingTwiceIsAnErrorButCloseIsIdempotent() {
        Lease lease = provider.tryAcquire(resource("r"), longLease()).orElseThrow();
        lease.close();
        lease.close();
        assertThatThrownBy(lease::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("released");
        assertThatThrownBy(() -> lease.renew(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"   ", "line\nbreak", "tab\there"})
    void badResourceNamesAreRefusedBeforeAnyIo(String bad) {
        assertThatThrownBy(() -> provider.tryAcquire(bad, longLease()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource");
        assertThatThrownBy(() -> provider.acquire(bad, longLease())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> provider.acquireAsync(bad, longLease())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void hugeResourceNamesAreRefused() {
        String huge = "r".repeat(10_000);
        assertThatThrownBy(() -> provider.tryAcquire(huge, longLease()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 256 characters");
    }

    @Test
    @SuppressWarnings("NullAway") // passes null options on purpose: the provider must refuse them
    void badOptionsAreRefused() {
        assertThatThrownBy(() -> provider.tryAcquire(resource("r"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("options");
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl");
        assertThatThrownBy(() -> LeaseOptions.ofTtl(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        try (Lease lease = provider.tryAcquire(resource("r"), longLease()).orElseThrow()) {
            assertThatThrownBy(() -> lease.renew(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aClosedProviderRefusesEveryCallButAnotherClose() {
        LockProvider closing = anotherProvider();
        closing.close();
        assertThatThrownBy(() -> closing.tryAcquire(resource("r"), longLease()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> closing.acquire(resource("r"), longLease())).isInstanceOf(IllegalStateException.class);
        closing.close(); // idempotent, like Lease.close()
        assertThatThrownBy(() -> closing.tryAcquire(resource("r"), longLease())).isInstanceOf(IllegalStateException.class);
    }

    // ---- takeover timing, unreachable servers, zero and bounded waits, close, release vs renewal ----

    /**
     * No moment has two valid leases: the old holder's validity, sampled right after another
     * client took the lock over, has run out. (Sampled before the takeover it may still be
     * positive by the time between the sample and the takeover, however long a pause makes
     * that; sampled after, only a local validity that outlives the server's hold is positive.)
     */
    @Test
    void validitySampledJustAfterEachSuccessfulTakeoverIsNeverPositiveForTheOldLease() {
        String resource = resource("r");
        LockProvider other = anotherProvider();
        for (int round = 0; round < 3; round++) {
            Lease old = provider.tryAcquire(resource, ttl(shortTtl())).orElseThrow();
            AtomicReference<Duration> sampledAfterTakeover = new AtomicReference<>();
            Lease next = await().atMost(shortTtl().multipliedBy(20)).pollInterval(Duration.ofMillis(5)).until(() -> {
                Optional<Lease> taken = other.tryAcquire(resource, ttl(shortTtl()));
                if (taken.isPresent()) {
                    sampledAfterTakeover.set(old.remaining());
                }
                return taken;
            }, Optional::isPresent).orElseThrow();
            assertThat(sampledAfterTakeover.get()).as("old holder's validity sampled just after takeover %d", round)
                    .isEqualTo(Duration.ZERO);
            assertThat(old.isValid()).isFalse();
            assertThat(next.token().isNewerThan(old.token())).isTrue();
            next.close();
        }
    }

    @Test
    void aZeroWaitTimeoutIsOneAttemptThatFailsAtOnceAndLeavesTheHolderAlone() throws Exception {
        String resource = resource("r");
        try (Lease held = provider.tryAcquire(resource, longLease()).orElseThrow()) {
            LockProvider other = anotherProvider();
            LeaseOptions noWait = longLease().withWaitTimeout(Duration.ZERO)
                    .withBackoff(dev.fencing.core.Backoff.fixed(Duration.ofSeconds(30)));
            assertThatThrownBy(() -> other.acquire(resource, noWait)).isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("wait timeout");
            assertThatThrownBy(() -> other.acquireAsync(resource, noWait).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LockUnavailableException.class);
            assertThat(held.isValid()).isTrue();
        }
        try (Lease free = anotherProvider().acquire(resource, longLease().withWaitTimeout(Duration.ZERO))) {
            assertThat(free.isValid()).as("a free lock is granted by the one attempt").isTrue();
        }
    }

    /** How much an acquire may overrun its wait timeout: one attempt's round trips on a busy machine. */
    protected Duration waitOverrunBound() {
        return Duration.ofMillis(1500);
    }

    @Test
    void acquireReturnsWithinItsWaitTimeoutPlusASmallBound() {
        String resource = resource("r");
        try (Lease held = provider.tryAcquire(resource, longLease()).orElseThrow()) {
            LockProvider other = anotherProvider();
            Duration wait = Duration.ofMillis(400);
            // a backoff far above the wait: a loop that slept it out instead of the time left would overrun
            LeaseOptions options = longLease().withWaitTimeout(wait)
                    .withBackoff(dev.fencing.core.Backoff.fixed(Duration.ofSeconds(20)));
            long started = System.nanoTime();
            assertThatThrownBy(() -> other.acquire(resource, options)).isInstanceOf(LockUnavailableException.class);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).isGreaterThanOrEqualTo(wait).isLessThan(wait.plus(waitOverrunBound()));
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void closeStopsRenewingAndHeldLeasesLapseOnTheirTtl() {
        String resource = resource("r");
        LockProvider closing = anotherProvider();
        Lease lease = closing.tryAcquire(resource, LeaseOptions.builder().ttl(shortTtl()).autoRenew(true).build())
                .orElseThrow();
        closing.close();
        // the lock is not released by close(): it lapses once the renewals stopped and a TTL passed
        Lease next = await().atMost(shortTtl().multipliedBy(8)).pollInterval(Duration.ofMillis(20))
                .until(() -> provider.tryAcquire(resource, longLease()), Optional::isPresent).orElseThrow();
        assertThat(lease.isValid()).as("the closed provider's lease once the lock lapsed").isFalse();
        Holds.throughout("the next lease valid", shortTtl().multipliedBy(2), next::isValid);
        next.release();
    }

    /**
     * An {@code acquire} waiting for a held lock when its provider is closed ends with
     * {@link ProviderClosedException} and no lease: nothing is granted after close, so no lock is
     * held by a provider that is gone.
     */
    @Test
    void anAcquireWaitingWhenItsProviderClosesEndsWithoutALease() throws Exception {
        String resource = resource("close-while-waiting");
        Lease held = provider.tryAcquire(resource, longLease()).orElseThrow();
        LockProvider closing = anotherProvider();
        CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return closing.acquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))
                        .withWaitTimeout(Duration.ofSeconds(30)));
            } catch (InterruptedException | RuntimeException e) {
                return e;
            }
        });
        Holds.throughout("the acquire waiting", Duration.ofMillis(200), () -> !waiting.isDone());
        closing.close();
        held.release();
        Object outcome = waiting.get(30, TimeUnit.SECONDS);
        if (outcome instanceof Lease granted) {
            granted.close();
        }
        assertThat(outcome).as("what the closed provider's acquire returned").isInstanceOf(ProviderClosedException.class);
        Lease next = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> provider.tryAcquire(resource, longLease()), Optional::isPresent).orElseThrow();
        next.release();
    }

    /**
     * A release on an interrupted thread (a worker told to stop, closing its lease on the way out)
     * still releases the lock, reports a clean release and leaves the interrupt for the caller.
     */
    @Test
    void aReleaseOnAnInterruptedThreadReleasesTheLockAndKeepsTheInterrupt() {
        String resource = resource("interrupted-release");
        Lease lease = provider.tryAcquire(resource, longLease()).orElseThrow();
        Thread.currentThread().interrupt();
        try {
            lease.release();
            assertThat(Thread.currentThread().isInterrupted()).as("the caller's interrupt after the release").isTrue();
        } finally {
            Thread.interrupted();
        }
        Lease next = anotherProvider().tryAcquire(resource, longLease()).orElseThrow();
        assertThat(next.token().isNewerThan(lease.token())).isTrue();
        next.release();
    }

    @Test
    void aReleaseRacingARenewalNeverLeavesTheLockHeld() throws Exception {
        String resource = resource("r");
        LockProvider other = anotherProvider();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                Lease lease = provider.tryAcquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(30))
                        .autoRenew(round % 2 == 0).build()).orElseThrow();
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                Future<?> renewing = pool.submit(() -> {
                    start.await();
                    try {
                        lease.renew(Duration.ofSeconds(30));
                    } catch (LeaseLostException | IllegalStateException e) {
                        // released first: the renewal must find nothing to extend
                    }
                    return null;
                });
                Future<?> releasing = pool.submit(() -> {
                    start.await();
                    lease.release();
                    return null;
                });
                renewing.get(30, TimeUnit.SECONDS);
                try {
                    releasing.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).as("round %d", round).isInstanceOf(LeaseLostException.class);
                }
                assertThat(lease.isValid()).isFalse();
                Lease next = other.tryAcquire(resource, longLease())
                        .orElseThrow(() -> new AssertionError("the lock stayed held after a release raced a renewal"));
                next.release();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A provider of the same server whose replies the contract can hold back (see
     * {@link UnclearReplies}); empty if the provider module offers none, and the unclear-failure
     * case is then skipped with a printed reason.
     */
    protected java.util.Optional<UnclearReplies> unclearReplies() {
        return java.util.Optional.empty();
    }

    /** Why {@link #unclearReplies()} is empty, printed with the skip; override it with the reason. */
    protected String whyNoUnclearReplies() {
        return "override unclearReplies()";
    }

    /**
     * An acquire whose reply comes too late ends in {@link LockUnavailableException}, but the
     * server may have granted it: the provider must give the lock back, so that another client
     * gets it long before the 60 s TTL of the attempt.
     */
    @Test
    void anUnclearFailureLeavesNoLockBehind() {
        java.util.Optional<UnclearReplies> offered = unclearReplies();
        if (offered.isEmpty()) {
            Skip.because(getClass().getSimpleName() + " offers no UnclearReplies: " + whyNoUnclearReplies());
            return;
        }
        try (UnclearReplies fault = offered.get()) {
            String resource = resource("unclear");
            fault.provider().tryAcquire(resource("warm-up"), longLease()).orElseThrow().release();
            fault.holdReplies();
            // a wait timeout of a few seconds: a provider may wait on a silent server up to it (PostgreSQL does)
            assertThatThrownBy(() -> fault.provider().tryAcquire(resource,
                    longLease().withWaitTimeout(Duration.ofSeconds(3))))
                    .isInstanceOf(LockUnavailableException.class);
            fault.passReplies();
            Lease next = await().atMost(Duration.ofSeconds(15)).ignoreException(LockUnavailableException.class)
                    .until(() -> provider.tryAcquire(resource, longLease()), java.util.Optional::isPresent).orElseThrow();
            next.release();
        }
    }
}
