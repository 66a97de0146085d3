package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.InMemoryLockProvider;
import dev.fencing.testkit.InMemoryLockServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The listener on the testkit's in-memory provider and store, which emit the same events as the real ones. */
class MicrometerFencingListenerTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerFencingListener listener = MicrometerFencingListener.builder(registry)
            .provider("memory").store("memory").build();
    private final InMemoryLockServer server = new InMemoryLockServer();
    private final InMemoryLockProvider provider = InMemoryLockProvider.builder().server(server).listener(listener).build();
    private final InMemoryLockProvider other = InMemoryLockProvider.builder().server(server).build();
    private final FencedStore store = InMemoryFencedStore.builder().listener(listener).build();

    @AfterEach
    void close() {
        provider.close();
        other.close();
    }

    private long acquires(String outcome) {
        return registry.get("fencing.lease.acquire").tags("provider", "memory", "outcome", outcome).timer().count();
    }

    private double writes(String outcome) {
        return registry.get("fencing.store.writes").tags("store", "memory", "outcome", outcome).counter().count();
    }

    private double active() {
        return registry.get("fencing.lease.active").tags("provider", "memory").gauge().value();
    }

    @Test
    void aGrantAndReleaseAreTimedAndTheActiveGaugeFollows() {
        Lease lease = provider.tryAcquire("invoice-7", LeaseOptions.ofDefaults()).orElseThrow();
        assertThat(acquires("granted")).isEqualTo(1);
        assertThat(active()).isEqualTo(1);
        lease.renew(Duration.ofSeconds(30));
        assertThat(registry.get("fencing.lease.renewals").counter().count()).isEqualTo(1);
        lease.release();
        assertThat(active()).isZero();
        assertThat(registry.get("fencing.lease.held").tags("provider", "memory").timer().count()).isEqualTo(1);
    }

    @Test
    void anEarlyWarningOfFailingRenewalsIsCounted() {
        Lease lease = provider.tryAcquire("invoice-8", LeaseOptions.ofDefaults()).orElseThrow();
        listener.onRenewalsFailing(lease, Duration.ofSeconds(3), new IllegalStateException("server down"));
        assertThat(registry.get("fencing.lease.renewals.failing").tags("provider", "memory").counter().count())
                .isEqualTo(1);
        lease.release();
    }

    @Test
    void everyWayAnAcquireEndsHasItsOutcome() throws Exception {
        Lease held = other.tryAcquire("r", LeaseOptions.ofDefaults()).orElseThrow();
        assertThat(provider.tryAcquire("r", LeaseOptions.ofDefaults())).isEmpty();
        assertThat(acquires("held")).isEqualTo(1);
        assertThatThrownBy(() -> provider.acquire("r", LeaseOptions.builder().waitTimeout(Duration.ofMillis(50)).build()))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(acquires("timed_out")).isEqualTo(1);
        assertThat(registry.get("fencing.lease.acquire").tags("outcome", "timed_out").timer().totalTime(
                java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(50);
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> provider.acquire("r", LeaseOptions.builder().waitTimeout(Duration.ofSeconds(5)).build()))
                .isInstanceOf(InterruptedException.class);
        assertThat(acquires("interrupted")).isEqualTo(1);
        held.release();
        provider.acquireAsync("r", LeaseOptions.ofDefaults()).get(5, java.util.concurrent.TimeUnit.SECONDS).release();
        await().atMost(Duration.ofSeconds(5)).until(() -> acquires("granted") == 1);
    }

    @Test
    void aLostLeaseIsCountedByAReasonFromAFixedSet() {
        Lease lease = provider.tryAcquire("r", LeaseOptions.ofTtl(Duration.ofMillis(20))).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> other.tryAcquire("r", LeaseOptions.ofDefaults()).isPresent());
        assertThatThrownBy(() -> lease.renew(Duration.ofSeconds(1))).isNotNull();
        assertThat(registry.get("fencing.lease.lost").tags("reason", "taken_over").counter().count()).isEqualTo(1);
        assertThat(active()).isZero();
    }

    /**
     * A release long after the lease was taken over counts one loss (not a release), and the held
     * time stops where the lease stopped being valid, not when the loss was found.
     */
    @Test
    void aLossFoundAtReleaseIsOneLossTimedToTheDeadline() {
        Lease lease = provider.tryAcquire("late", LeaseOptions.ofTtl(Duration.ofMillis(50))).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> other.tryAcquire("late", LeaseOptions.ofDefaults()).isPresent());
        long since = System.nanoTime();
        await().pollDelay(Duration.ofMillis(400)).atMost(Duration.ofSeconds(5)) // the holder finds out much later
                .until(() -> System.nanoTime() - since >= Duration.ofMillis(400).toNanos());

        assertThatThrownBy(lease::release).isNotNull();

        assertThat(registry.get("fencing.lease.lost").tags("reason", "taken_over").counter().count()).isEqualTo(1);
        assertThat(registry.get("fencing.lease.held").tags("provider", "memory").timer().max(
                java.util.concurrent.TimeUnit.MILLISECONDS)).as("held time of a 50 ms lease found lost 400 ms later")
                .isLessThanOrEqualTo(50.0);
        assertThat(active()).isZero();
    }

    @Test
    void storeWritesAreCountedByOutcomeAndTheStaleCountIsTheZombieWritesStopped() {
        Lease zombie = other.tryAcquire("acct", LeaseOptions.ofTtl(Duration.ofMillis(20))).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> !zombie.isValid());
        Lease current = provider.tryAcquire("acct", LeaseOptions.ofDefaults()).orElseThrow();
        store.write(current.token(), "acct", "100");
        store.update(current.token(), "acct", v -> "90");
        assertThatThrownBy(() -> store.write(zombie.token(), "acct", "0")).isInstanceOf(StaleTokenException.class);
        Lease otherLock = provider.tryAcquire("another-lock", LeaseOptions.ofDefaults()).orElseThrow();
        assertThatThrownBy(() -> store.write(otherLock.token(), "acct", "5")).isInstanceOf(ForeignTokenException.class);
        assertThat(writes("accepted")).isEqualTo(2);
        assertThat(writes("stale")).isEqualTo(1);
        assertThat(writes("foreign")).isEqualTo(1);
    }

    @Test
    void noTagCarriesAResourceKeyOwnerOrToken() throws Exception {
        for (int i = 0; i < 20; i++) {
            try (Lease lease = provider.tryAcquire("resource-" + i, LeaseOptions.ofDefaults()).orElseThrow()) {
                store.write(lease.token(), "key-" + i, "v");
            }
        }
        Set<String> tagValues = registry.getMeters().stream().map(Meter::getId)
                .flatMap(id -> id.getTags().stream()).map(Tag::getValue).collect(Collectors.toSet());
        assertThat(tagValues).allSatisfy(value -> assertThat(value).doesNotContain("resource-").doesNotContain("key-"));
        assertThat(registry.getMeters()).hasSizeLessThan(30);
    }

    @Test
    void badTagNamesAreRefusedNamingTheValue() {
        assertThatThrownBy(() -> MicrometerFencingListener.builder(registry).provider("Redis Main"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'Redis Main'");
        assertThatThrownBy(() -> MicrometerFencingListener.builder(registry).store(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("''");
        assertThatThrownBy(() -> MicrometerFencingListener.builder(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
