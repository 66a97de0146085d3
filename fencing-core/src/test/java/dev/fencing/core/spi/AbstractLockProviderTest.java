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
import java.util.ArrayDeque;
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

    private enum Outcome { GRANT, HELD, INTERRUPTED }

    private static final class ScriptedProvider extends AbstractLockProvider {
        final List<String> events = new CopyOnWriteArrayList<>();
        private final boolean watches;
        private final Deque<Outcome> outcomes;

        ScriptedProvider(boolean watches, Outcome... outcomes) {
            super(MonotonicClock.system(), null, LeaseWatchdog.shared(), "scripted-async");
            this.watches = watches;
            this.outcomes = new ArrayDeque<>(List.of(outcomes));
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
        protected void doClose() {}
    }
}
