package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Backoff;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.MonotonicClock;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The wait loop's use of {@link AbstractLockProvider#watchReleases}, on a provider whose answers the test scripts. */
class AbstractLockProviderTest {

    /** A backoff longer than any test: an attempt that follows a failed one without a signal came from the loop itself. */
    private static final LeaseOptions WAITING = LeaseOptions.builder().ttl(Duration.ofSeconds(30))
            .waitTimeout(Duration.ofSeconds(60)).backoff(Backoff.fixed(Duration.ofSeconds(50))).build();

    @Test
    void anUncontendedAcquireStartsNoWatch() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.GRANT);

        try (Lease lease = provider.acquire("r", WAITING)) {
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(provider.events).containsExactly("attempt");
    }

    @Test
    void aWaiterStartsOneWatchThenAttemptsAgainBeforeSleeping() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.HELD, Outcome.GRANT);

        try (Lease lease = provider.acquire("r", WAITING)) {
            assertThat(lease.isValid()).isTrue();
        }
        // the second attempt came at once: with a 50 s backoff a sleep would have shown
        assertThat(provider.events).containsExactly("attempt", "watch", "attempt", "unwatch");
    }

    @Test
    void withoutAWatchTheWaiterSleepsUntilSignalled() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(false, Outcome.HELD, Outcome.GRANT);
        Thread signaller = new Thread(() -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> provider.releaseSignals().sleepers("r") == 1);
            provider.releaseSignals().signal("r");
        });
        signaller.start();

        try (Lease lease = provider.acquire("r", WAITING)) {
            assertThat(lease.isValid()).isTrue();
        }
        signaller.join();
        assertThat(provider.events).containsExactly("attempt", "attempt");
        assertThat(provider.releaseSignals().wakeUps()).isEqualTo(1);
    }

    @Test
    void anAsyncWaiterStartsOneWatchAttemptsAgainAtOnceAndClosesItWhenGranted() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.HELD, Outcome.GRANT);

        try (Lease lease = provider.acquireAsync("r", WAITING).get(10, java.util.concurrent.TimeUnit.SECONDS)) {
            assertThat(lease.isValid()).isTrue();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> provider.events.contains("unwatch"));
        assertThat(provider.events).containsExactly("attempt", "watch", "attempt", "unwatch");
    }

    @Test
    void theWatchIsClosedWhenTheWaitTimesOut() {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.HELD, Outcome.HELD, Outcome.HELD);
        LeaseOptions briefly = WAITING.withWaitTimeout(Duration.ofMillis(20))
                .withBackoff(Backoff.fixed(Duration.ofMillis(5)));

        assertThatThrownBy(() -> provider.acquire("r", briefly)).isInstanceOf(LockUnavailableException.class);
        assertThat(provider.events).startsWith("attempt", "watch", "attempt").endsWith("unwatch")
                .containsOnlyOnce("watch", "unwatch");
    }

    @Test
    void anAttemptInterruptedOnItsServerEndsTheWaitWithInterruptedException() {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.HELD, Outcome.INTERRUPTED);

        assertThatThrownBy(() -> provider.acquire("r", WAITING)).isInstanceOf(InterruptedException.class)
                .hasMessageContaining("'r'");
        assertThat(provider.events).containsExactly("attempt", "watch", "attempt", "unwatch");
        assertThat(Thread.interrupted()).as("the interrupt was consumed by the exception").isFalse();
    }

    @Test
    void aZeroWaitTimeoutIsExactlyOneAttemptAndWatchesNothing() {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.HELD, Outcome.HELD, Outcome.GRANT);

        assertThatThrownBy(() -> provider.acquire("r", WAITING.withWaitTimeout(Duration.ZERO)))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(provider.events).containsExactly("attempt");
        assertThatThrownBy(() -> provider.acquireAsync("r", WAITING.withWaitTimeout(Duration.ZERO)).join())
                .hasCauseInstanceOf(LockUnavailableException.class);
        assertThat(provider.events).containsExactly("attempt", "attempt");
    }

    @Test
    void pendingAsyncWaitsHoldNoThreadBetweenAttemptsAndAReleaseSignalWakesThem() throws Exception {
        ScriptedProvider provider = new ScriptedProvider("many-waits-async", false);
        List<java.util.concurrent.CompletableFuture<Lease>> pending = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            pending.add(provider.acquireAsync("r" + i, WAITING));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> provider.events.size() == 200);
        long asyncThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("many-waits-async") && t.isAlive()).count();
        assertThat(asyncThreads).as("threads of 200 pending waits").isLessThanOrEqualTo(
                AbstractLockProvider.ASYNC_ATTEMPT_THREADS + 1);
        assertThat(pending).noneMatch(java.util.concurrent.CompletableFuture::isDone);

        provider.grantNext();
        provider.releaseSignals().signal("r7"); // with a 50 s backoff only the signal can bring the next attempt
        try (Lease lease = pending.get(7).get(10, java.util.concurrent.TimeUnit.SECONDS)) {
            assertThat(lease.isValid()).isTrue();
        }
        pending.get(8).cancel(true);
        provider.close();
        assertThat(pending.get(9)).failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(IllegalStateException.class).withMessageContaining("closed");
        await().atMost(Duration.ofSeconds(10)).until(() -> provider.releaseSignals().waiters("r9") == 0);
    }

    @Test
    void closeStopsTheRenewalOfItsLeasesWithoutReleasingThem() {
        ScriptedProvider provider = new ScriptedProvider(false, Outcome.GRANT);
        LeaseOptions renewing = LeaseOptions.builder().ttl(Duration.ofMillis(300)).autoRenew(true).build();
        FakeLease lease = (FakeLease) provider.tryAcquire("r", renewing).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> lease.renewals.get() >= 2);

        provider.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
        int atExpiry = lease.renewals.get();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(30)).until(() -> lease.renewals.get() == atExpiry);
        assertThat(lease.releases).as("close releases nothing").hasValue(0);
    }

    @Test
    void everyAttemptIsToldTheDeadlineOfTheCallersWait() throws Exception {
        ManualClock clock = new ManualClock();
        long start = clock.nanoTime();
        DeadlineProvider provider = new DeadlineProvider(clock, 2);
        LeaseOptions tenSeconds = WAITING.withWaitTimeout(Duration.ofSeconds(10))
                .withBackoff(Backoff.fixed(Duration.ofMillis(1)));

        provider.tryAcquire("r", tenSeconds);
        provider.acquire("r", tenSeconds).close();
        provider.acquireAsync("r", tenSeconds).get(10, java.util.concurrent.TimeUnit.SECONDS).close();

        long deadline = start + Duration.ofSeconds(10).toNanos();
        // tryAcquire, then acquire (held, then granted), then acquireAsync (held, then granted)
        assertThat(provider.deadlines).containsExactly(deadline, deadline, deadline, deadline, deadline);
        assertThat(provider.requestedAt).containsOnly(start);
    }

    @Test
    void aWaiterWhoseLockIsFreedBeforeItsTimeoutGetsIt() throws Exception {
        ManualClock clock = new ManualClock();
        DeadlineProvider provider = new DeadlineProvider(clock, 3);
        LeaseOptions briefBackoff = WAITING.withWaitTimeout(Duration.ofSeconds(10))
                .withBackoff(Backoff.fixed(Duration.ofMillis(1)));

        try (Lease lease = provider.acquire("r", briefBackoff)) {
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(provider.deadlines).hasSize(4);
    }

    @Test
    void anInterruptedCallerIsRefusedBeforeAnyAttempt() {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.GRANT);

        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> provider.acquire("r", WAITING)).isInstanceOf(InterruptedException.class);
        assertThat(provider.events).isEmpty();
        assertThat(Thread.interrupted()).isFalse();
    }

    @Test
    void aFirstAttemptInterruptedOnItsServerEndsTheWaitBeforeAnyWatch() {
        ScriptedProvider provider = new ScriptedProvider(true, Outcome.INTERRUPTED);

        assertThatThrownBy(() -> provider.acquire("r", WAITING)).isInstanceOf(InterruptedException.class);
        assertThat(provider.events).containsExactly("attempt");
        assertThat(Thread.interrupted()).isFalse();
    }

    @Test
    void anInterruptedAttemptWithAZeroWaitIsAnInterruptNotATimeout() {
        ScriptedProvider provider = new ScriptedProvider(false, Outcome.INTERRUPTED);

        assertThatThrownBy(() -> provider.acquire("r", WAITING.withWaitTimeout(Duration.ZERO)))
                .isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
    }

    @Test
    void closeFreesTheProvidersResourcesOnceAndRefusesLaterCalls() {
        ScriptedProvider provider = new ScriptedProvider(false, Outcome.GRANT);

        provider.close();
        provider.close();

        assertThat(provider.events).containsExactly("doClose");
        assertThatThrownBy(() -> provider.tryAcquire("r", WAITING)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void theAsyncThreadsAreDaemonsAndEndWithClose() {
        ScriptedProvider provider = new ScriptedProvider("daemon-check-async", false);
        java.util.concurrent.CompletableFuture<Lease> pending = provider.acquireAsync("r", WAITING);
        await().atMost(Duration.ofSeconds(10)).until(() -> !asyncThreads("daemon-check-async").isEmpty()
                && provider.events.contains("attempt"));

        assertThat(asyncThreads("daemon-check-async")).as("a provider left open keeps no JVM alive")
                .allMatch(Thread::isDaemon);
        assertThat(provider.isClosed()).isFalse();

        provider.close();

        assertThat(provider.isClosed()).isTrue();
        assertThat(pending).isCompletedExceptionally();
        await().atMost(Duration.ofSeconds(10)).until(() -> asyncThreads("daemon-check-async").isEmpty());
    }

    @Test
    void aLeaseGrantedWhileCloseRanIsNotRenewed() throws Exception {
        java.util.concurrent.CountDownLatch attempting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        AbstractLockProvider provider = new AbstractLockProvider(MonotonicClock.system(), null,
                LeaseWatchdog.shared(), "closing-async") {
            @Override
            protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
                attempting.countDown();
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return Optional.of(new FakeLease(clock(), options.ttl(), listener()));
            }

            @Override
            protected void doClose() {}
        };
        LeaseOptions renewing = LeaseOptions.builder().ttl(Duration.ofMillis(300)).autoRenew(true).build();
        java.util.concurrent.CompletableFuture<Optional<Lease>> acquiring = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> provider.tryAcquire("r", renewing));
        attempting.await();

        provider.close();
        closed.countDown();

        FakeLease lease = (FakeLease) acquiring.get(10, java.util.concurrent.TimeUnit.SECONDS).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
        assertThat(lease.renewals).as("no renewal outlives close()").hasValue(0);
        assertThat(lease.releases).hasValue(0);
    }

    /** A waiting acquire whose provider closes ends with ProviderClosedException, and attempts nothing after. */
    @Test
    void anAcquireWaitingWhenItsProviderClosesEndsWithoutAnotherAttempt() throws Exception {
        ScriptedProvider provider = new ScriptedProvider(false);
        LeaseOptions polling = WAITING.withBackoff(Backoff.fixed(Duration.ofMillis(10)));
        java.util.concurrent.CompletableFuture<Object> waiting = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return provider.acquire("r", polling);
            } catch (InterruptedException | RuntimeException e) {
                return e;
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> provider.events.size() >= 2);
        provider.close();
        Object outcome = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);

        assertThat(outcome).isInstanceOf(dev.fencing.core.ProviderClosedException.class);
        int attempts = (int) provider.events.stream().filter("attempt"::equals).count();
        assertThat(provider.events.subList(provider.events.indexOf("doClose"), provider.events.size()))
                .as("events from close on, after %s attempts", attempts).containsOnly("doClose");
    }

    /** An attempt that fails because the provider closed under it (its client stopped) is reported as the close. */
    @Test
    void anAttemptFailingBecauseTheProviderClosedIsReportedAsTheClose() throws Exception {
        java.util.concurrent.CountDownLatch attempting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        AbstractLockProvider provider = new AbstractLockProvider(MonotonicClock.system(), null,
                LeaseWatchdog.shared(), "closing-failure") {
            @Override
            protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
                attempting.countDown();
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                throw LockUnavailableException.unreachable(resource, "the client was stopped", null);
            }

            @Override
            protected void doClose() {}
        };
        java.util.concurrent.CompletableFuture<Object> acquiring = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return provider.acquire("r", WAITING);
            } catch (InterruptedException | RuntimeException e) {
                return e;
            }
        });
        attempting.await();
        provider.close();
        closed.countDown();

        assertThat(acquiring.get(10, java.util.concurrent.TimeUnit.SECONDS))
                .isInstanceOfSatisfying(dev.fencing.core.ProviderClosedException.class,
                        e -> assertThat(e).hasCauseInstanceOf(LockUnavailableException.class));
    }

    /** A grant that lands while the provider closes is given back, and the waiting acquire ends with ProviderClosedException. */
    @Test
    void aGrantLandingWhileTheProviderClosesIsGivenBack() throws Exception {
        java.util.concurrent.CountDownLatch attempting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<FakeLease> granted = new java.util.concurrent.atomic.AtomicReference<>();
        AbstractLockProvider provider = new AbstractLockProvider(MonotonicClock.system(), null,
                LeaseWatchdog.shared(), "closing-sync") {
            @Override
            protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
                attempting.countDown();
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                FakeLease lease = new FakeLease(clock(), options.ttl(), listener());
                granted.set(lease);
                return Optional.of(lease);
            }

            @Override
            protected void doClose() {}
        };
        java.util.concurrent.CompletableFuture<Object> acquiring = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return provider.acquire("r", WAITING);
            } catch (InterruptedException | RuntimeException e) {
                return e;
            }
        });
        attempting.await();
        provider.close();
        closed.countDown();

        assertThat(acquiring.get(10, java.util.concurrent.TimeUnit.SECONDS))
                .isInstanceOf(dev.fencing.core.ProviderClosedException.class);
        assertThat(granted.get().releases).as("the grant given back").hasValue(1);
        assertThat(granted.get().isValid()).isFalse();
    }

    private static List<Thread> asyncThreads(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(name) && t.isAlive())
                .toList();
    }

    private enum Outcome { GRANT, HELD, INTERRUPTED }

    /** Holds the lock for its first {@code held} attempts; records what each attempt was told. */
    private static final class DeadlineProvider extends AbstractLockProvider {
        final List<Long> deadlines = new CopyOnWriteArrayList<>();
        final List<Long> requestedAt = new CopyOnWriteArrayList<>();
        private final java.util.concurrent.atomic.AtomicInteger held;

        DeadlineProvider(MonotonicClock clock, int held) {
            super(clock, null, LeaseWatchdog.shared(), "deadline-async");
            this.held = new java.util.concurrent.atomic.AtomicInteger(held);
        }

        @Override
        protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos,
                long deadlineNanos) {
            deadlines.add(deadlineNanos);
            requestedAt.add(requestedAtNanos);
            return attempt(resource, options, requestedAtNanos);
        }

        @Override
        protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
            if (held.getAndDecrement() > 0) {
                return Optional.empty();
            }
            held.set(1); // the next caller finds it held once more
            return Optional.of(new FakeLease(clock(), options.ttl(), listener()));
        }

        @Override
        protected void doClose() {}
    }

    private static final class ScriptedProvider extends AbstractLockProvider {
        final List<String> events = new CopyOnWriteArrayList<>();
        private final boolean watches;
        private final Deque<Outcome> outcomes; // polled by the async attempt threads too

        ScriptedProvider(boolean watches, Outcome... outcomes) {
            this("scripted-async", watches, outcomes);
        }

        ScriptedProvider(String threadName, boolean watches, Outcome... outcomes) {
            super(MonotonicClock.system(), null, LeaseWatchdog.shared(), threadName);
            this.watches = watches;
            this.outcomes = new java.util.concurrent.ConcurrentLinkedDeque<>(List.of(outcomes));
        }

        void grantNext() {
            outcomes.add(Outcome.GRANT);
        }

        @Override
        protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
            events.add("attempt");
            Outcome outcome = outcomes.isEmpty() ? Outcome.HELD : outcomes.poll();
            switch (outcome) {
                case GRANT:
                    return Optional.of(new FakeLease(clock(), options.ttl(), listener()));
                case INTERRUPTED:
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                default:
                    return Optional.empty();
            }
        }

        @Override
        protected ReleaseWatch watchReleases(String resource) {
            if (!watches) {
                return ReleaseWatch.NONE;
            }
            events.add("watch");
            return () -> events.add("unwatch");
        }

        @Override
        protected void doClose() {
            events.add("doClose");
        }
    }
}
