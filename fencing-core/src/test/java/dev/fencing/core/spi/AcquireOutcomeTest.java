package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.AcquireOutcome;
import dev.fencing.core.Backoff;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the listener hears of each acquire — its outcome and how long it waited — on a scripted provider and a manual clock. */
class AcquireOutcomeTest {

    private static final LeaseOptions OPTIONS = LeaseOptions.builder().ttl(Duration.ofSeconds(30))
            .waitTimeout(Duration.ofMillis(2500)).backoff(Backoff.fixed(Duration.ofMillis(1))).build();

    private enum Step { GRANT, HELD, INTERRUPT, FAIL, UNREACHABLE, UNREACHABLE_JOINED }

    private final ManualClock clock = new ManualClock();
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final FencingListener listener = new FencingListener() {
        @Override
        public void onGranted(Lease lease) {
            heard.add("granted");
        }

        @Override
        public void onAcquireFinished(String resource, AcquireOutcome outcome, Duration waited) {
            heard.add(resource + " " + outcome + " " + waited.toMillis() + " ms");
        }
    };

    /** Each attempt takes one second on the manual clock, then does its step. */
    private final class Provider extends AbstractLockProvider {
        private final Deque<Step> steps;

        Provider(Step... steps) {
            super(clock, listener, LeaseWatchdog.shared(), "outcome-async");
            this.steps = new java.util.concurrent.ConcurrentLinkedDeque<>(List.of(steps));
        }

        @Override
        protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
            clock.advance(Duration.ofSeconds(1));
            Step step = steps.isEmpty() ? Step.HELD : steps.poll();
            switch (step) {
                case GRANT:
                    return Optional.of(new FakeLease(clock(), options.ttl(), listener()));
                case INTERRUPT:
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                case FAIL:
                    throw new IllegalStateException("the server answered nonsense");
                case UNREACHABLE:
                    throw LockUnavailableException.unreachable(resource, "server down", null);
                case UNREACHABLE_JOINED: // as a provider that joins its client's future throws it
                    throw new java.util.concurrent.CompletionException(
                            LockUnavailableException.unreachable(resource, "server down", null));
                default:
                    return Optional.empty();
            }
        }

        @Override
        protected void checkResource(String resource) {
            if (resource.startsWith("bad")) {
                throw new IllegalArgumentException("no bad names");
            }
        }

        @Override
        protected void doClose() {}
    }

    @Test
    void tryAcquireReportsGrantedHeldInterruptedAndFailedWithTheTimeItTook() {
        Provider provider = new Provider(Step.GRANT, Step.HELD, Step.INTERRUPT, Step.FAIL, Step.UNREACHABLE);

        assertThat(provider.tryAcquire("r", OPTIONS)).isPresent();
        assertThat(provider.tryAcquire("r", OPTIONS)).isEmpty();
        assertThat(provider.tryAcquire("r", OPTIONS)).isEmpty();
        assertThat(Thread.interrupted()).as("the interrupt status is kept").isTrue();
        assertThatThrownBy(() -> provider.tryAcquire("r", OPTIONS)).hasMessageContaining("nonsense");
        assertThatThrownBy(() -> provider.tryAcquire("r", OPTIONS)).isInstanceOf(LockUnavailableException.class);

        assertThat(heard).containsExactly("granted", "r GRANTED 1000 ms", "r HELD 1000 ms", "r INTERRUPTED 1000 ms",
                "r FAILED 1000 ms", "r UNAVAILABLE 1000 ms");
    }

    @Test
    void acquireReportsGrantedTimedOutInterruptedAndFailed() throws Exception {
        Provider provider = new Provider(Step.HELD, Step.GRANT, Step.HELD, Step.HELD, Step.HELD, Step.INTERRUPT,
                Step.FAIL);

        assertThat(provider.acquire("r", OPTIONS)).isNotNull();
        assertThatThrownBy(() -> provider.acquire("r", OPTIONS)).isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(() -> provider.acquire("r", OPTIONS)).isInstanceOf(InterruptedException.class);
        assertThatThrownBy(() -> provider.acquire("r", OPTIONS)).hasMessageContaining("nonsense");

        assertThat(heard).containsExactly("granted", "r GRANTED 2000 ms", "r TIMED_OUT 3000 ms",
                "r INTERRUPTED 1000 ms", "r FAILED 1000 ms");
    }

    @Test
    void acquireAsyncReportsGrantedTimedOutAndFailedUnwrapped() throws Exception {
        Provider provider = new Provider(Step.HELD, Step.GRANT);
        provider.acquireAsync("r", OPTIONS).get(10, TimeUnit.SECONDS).close();
        awaitHeard(2);
        assertThat(heard).containsExactly("granted", "r GRANTED 2000 ms");

        heard.clear();
        CompletableFuture<Lease> timedOut = new Provider().acquireAsync("r", OPTIONS);
        assertThatThrownBy(() -> timedOut.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockUnavailableException.class);
        awaitHeard(1);
        assertThat(heard).containsExactly("r TIMED_OUT 3000 ms");

        heard.clear();
        CompletableFuture<Lease> failed = new Provider(Step.FAIL).acquireAsync("r", OPTIONS);
        assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        awaitHeard(1);
        assertThat(heard).containsExactly("r FAILED 1000 ms");

        heard.clear();
        CompletableFuture<Lease> unreachable = new Provider(Step.UNREACHABLE_JOINED).acquireAsync("r", OPTIONS);
        assertThatThrownBy(() -> unreachable.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        awaitHeard(1);
        assertThat(heard).as("the listener hears the cause, not its wrapper").containsExactly("r UNAVAILABLE 1000 ms");
    }

    @Test
    void everyWayInChecksTheProvidersOwnRulesAndAClosedProviderRefuses() {
        Provider provider = new Provider(Step.GRANT);

        assertThatThrownBy(() -> provider.tryAcquire("bad-r", OPTIONS)).hasMessageContaining("no bad names");
        assertThatThrownBy(() -> provider.acquire("bad-r", OPTIONS)).hasMessageContaining("no bad names");
        assertThatThrownBy(() -> provider.acquireAsync("bad-r", OPTIONS)).hasMessageContaining("no bad names");
        provider.close();
        assertThatThrownBy(() -> provider.acquire("r", OPTIONS)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> provider.acquireAsync("r", OPTIONS)).isInstanceOf(IllegalStateException.class);
        assertThat(heard).isEmpty();
    }

    @Test
    void aWaitWhoseDeadlineIsReachedExactlyEndsWithoutAnotherAttempt() throws Exception {
        LeaseOptions twoSeconds = OPTIONS.withWaitTimeout(Duration.ofSeconds(2));
        Provider sync = new Provider();
        assertThatThrownBy(() -> sync.acquire("r", twoSeconds)).isInstanceOf(LockUnavailableException.class);
        assertThat(heard).containsExactly("r TIMED_OUT 2000 ms");

        heard.clear();
        CompletableFuture<Lease> async = new Provider().acquireAsync("r", twoSeconds);
        assertThatThrownBy(() -> async.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockUnavailableException.class);
        awaitHeard(1);
        assertThat(heard).containsExactly("r TIMED_OUT 2000 ms");
    }

    @Test
    void theBackoffIsAskedForEachWaitInTurn() throws Exception {
        List<Integer> asked = new CopyOnWriteArrayList<>();
        Backoff recording = attempt -> {
            asked.add(attempt);
            return Duration.ofMillis(1);
        };
        LeaseOptions options = OPTIONS.withWaitTimeout(Duration.ofSeconds(4)).withBackoff(recording);

        assertThatThrownBy(() -> new Provider().acquire("r", options)).isInstanceOf(LockUnavailableException.class);
        assertThat(asked).containsExactly(0, 1, 2);

        asked.clear();
        CompletableFuture<Lease> async = new Provider().acquireAsync("r", options);
        assertThatThrownBy(() -> async.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockUnavailableException.class);
        assertThat(asked).containsExactly(0, 1, 2);
    }

    @Test
    void aLeaseGrantedToACancelledAsyncWaitIsGivenBack() throws Exception {
        java.util.concurrent.CountDownLatch attempting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
        List<FakeLease> granted = new CopyOnWriteArrayList<>();
        AbstractLockProvider provider = new AbstractLockProvider(clock, listener, LeaseWatchdog.shared(),
                "unclaimed-async") {
            @Override
            protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
                attempting.countDown();
                try {
                    answer.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                FakeLease lease = new FakeLease(clock(), options.ttl(), listener());
                granted.add(lease);
                return Optional.of(lease);
            }

            @Override
            protected void doClose() {}
        };
        CompletableFuture<Lease> wait = provider.acquireAsync("r", OPTIONS);
        assertThat(attempting.await(10, TimeUnit.SECONDS)).isTrue();

        wait.cancel(true);
        answer.countDown();

        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> !granted.isEmpty() && granted.get(0).releases.get() > 0);
        assertThat(granted).singleElement().satisfies(lease -> {
            assertThat(lease.releases).as("the lease nobody will use is released").hasValue(1);
            assertThat(lease.isValid()).isFalse();
        });
        provider.close();
    }

    private void awaitHeard(int count) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> heard.size() >= count);
    }
}
