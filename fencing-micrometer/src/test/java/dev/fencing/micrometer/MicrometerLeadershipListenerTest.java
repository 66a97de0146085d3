package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.leader.Leadership;
import dev.fencing.testkit.InMemoryLockProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The listener on a leadership over the testkit's in-memory provider. */
class MicrometerLeadershipListenerTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final InMemoryLockProvider provider = InMemoryLockProvider.create();

    @AfterEach
    void close() {
        provider.close();
    }

    private double count(String name, String reason) {
        var search = registry.find(name).tag("leadership", "scheduler");
        return (reason == null ? search : search.tag("reason", reason)).counter().count();
    }

    private double leader() {
        return registry.find("fencing.leadership.leader").tag("leadership", "scheduler").gauge().value();
    }

    @Test
    void countsTermsAndTheirEndsAndShowsWhetherItLeads() {
        Leadership leadership = Leadership.builder(provider, "scheduler-lock").ttl(Duration.ofSeconds(5))
                .listener(new MicrometerLeadershipListener(registry, "scheduler")).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> leader() == 1.0);
        leadership.currentTerm().orElseThrow().lease().release(); // lost behind its back: re-elected
        await().atMost(Duration.ofSeconds(10)).until(() -> count("fencing.leadership.elected", null) == 2.0);
        leadership.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> leader() == 0.0);
        assertThat(count("fencing.leadership.revoked", "lost")).isEqualTo(1.0);
        assertThat(count("fencing.leadership.revoked", "stopped")).isEqualTo(1.0);
    }

    @Test
    void theBuilderTagsAsTheConstructorDoes() throws InterruptedException {
        dev.fencing.core.Lease lease = provider.acquire("nightly-lock", dev.fencing.core.LeaseOptions.ofTtl(
                Duration.ofSeconds(5)));
        MicrometerLeadershipListener.builder(registry).leadership("nightly").build()
                .onElected(new dev.fencing.core.leader.Term(lease.token(), lease, java.time.Instant.EPOCH));
        assertThat(registry.get("fencing.leadership.elected").tag("leadership", "nightly").counter().count()).isEqualTo(1.0);
        assertThatThrownBy(() -> MicrometerLeadershipListener.builder(registry).leadership("Not A Tag").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leadership tag must match");
        assertThatThrownBy(() -> MicrometerLeadershipListener.builder(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesAHighCardinalityLookingTag() {
        assertThatThrownBy(() -> new MicrometerLeadershipListener(registry, "Scheduler Lock #7"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leadership tag must match");
    }
}
