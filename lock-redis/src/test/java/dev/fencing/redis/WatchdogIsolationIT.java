package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.RedisTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One frozen Redis must not cost the leases on another Redis their renewals. Both providers use
 * the JVM's shared watchdog (two ticking threads); the frozen server (SIGSTOP) leaves its
 * renewals blocked for the client's command timeout. When the watchdog's ticking threads still ran
 * the renewals themselves, those blocked renewals held both watchdog threads and the lease on the healthy server expired: 0 renewals, and another
 * client took its lock.
 */
class WatchdogIsolationIT {

    private RedisTestServer frozen;
    private RedisTestServer healthy;

    @BeforeEach
    void twoServersOfTheirOwn() {
        frozen = RedisTestServer.launch();
        healthy = RedisTestServer.launch();
    }

    @AfterEach
    void stopServers() {
        frozen.resume();
        frozen.stop();
        healthy.stop();
    }

    @Test
    void leasesOnAHealthyRedisKeepRenewingWhileAnotherRedisIsFrozen() {
        Duration ttl = Duration.ofMillis(900);
        LeaseOptions renewing = LeaseOptions.builder().ttl(ttl).autoRenew(true).build();
        RecordingListener healthyEvents = new RecordingListener();
        try (RedisLockProvider onFrozen = RedisLockProvider.builder(frozen.uri()).build();
                RedisLockProvider onHealthy = RedisLockProvider.builder(healthy.uri()).listener(healthyEvents).build();
                RedisLockProvider otherClient = RedisLockProvider.builder(healthy.uri()).build()) {
            List<Lease> stuck = new ArrayList<>();
            for (int i = 0; i < 4; i++) { // more than the shared watchdog's two threads
                stuck.add(onFrozen.tryAcquire("frozen-" + i, renewing).orElseThrow());
            }
            Lease lease = onHealthy.tryAcquire("healthy", renewing).orElseThrow();

            frozen.pause();
            int renewalsAtFreeze = healthyEvents.renewed();
            // ten TTLs: long past the 5 s command timeout, so renewals blocked on the frozen server were in flight
            await().atMost(ttl.multipliedBy(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                assertThat(otherClient.tryAcquire("healthy", LeaseOptions.ofDefaults()))
                        .as("another client took the healthy server's lock").isEmpty();
                assertThat(lease.isValid()).as("lease on the healthy server").isTrue();
                return healthyEvents.renewed() >= renewalsAtFreeze + 30;
            });
            await().atMost(ttl.multipliedBy(10)).until(() -> stuck.stream().noneMatch(Lease::isValid));
            assertThat(lease.isValid()).isTrue();
            assertThat(healthyEvents.lost()).isZero();
            frozen.resume();
            lease.release();
        }
    }
}
