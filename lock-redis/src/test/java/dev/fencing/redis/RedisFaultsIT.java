package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.RedisTestServer;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Faults injected into a Redis server of this class's own, so the shared one stays up for other tests. */
class RedisFaultsIT {

    private static RedisTestServer redis;

    @BeforeAll
    static void startOwnServer() {
        redis = RedisTestServer.launch();
    }

    @AfterAll
    static void stopOwnServer() {
        redis.kill();
    }

    @Test
    void tokensKeepIncreasingAcrossARestartThatLosesAllData() {
        try (RedisLockProvider provider = RedisLockProvider.create(redis.uri())) {
            long before;
            try (Lease lease = provider.tryAcquire("restart", LeaseOptions.ofDefaults()).orElseThrow()) {
                before = lease.token().value();
            }
            redis.restartEmpty();
            assertThat((java.util.List<?>) redis.command("KEYS", "*")).isEmpty();

            Lease after = await().atMost(Duration.ofSeconds(20)).ignoreException(LockUnavailableException.class)
                    .until(() -> provider.tryAcquire("restart", LeaseOptions.ofDefaults()), Optional::isPresent)
                    .orElseThrow();
            assertThat(after.token().value()).isGreaterThan(before);
            after.release();
        }
    }

    @Test
    void aLostConnectionMarksTheLeaseLostAndTheProviderRecovers() {
        RecordingListener events = new RecordingListener();
        try (RedisLockProvider provider = RedisLockProvider.builder(redis.uri()).listener(events)
                .requestTimeout(Duration.ofMillis(500)).build()) {
            Lease lease = provider.tryAcquire("conn", LeaseOptions.builder().ttl(Duration.ofMillis(900))
                    .autoRenew(true).build()).orElseThrow();
            redis.kill();

            await().atMost(Duration.ofSeconds(15)).until(() -> events.lost() == 1);
            assertThat(lease.isValid()).isFalse();

            redis.start();
            Lease next = await().atMost(Duration.ofSeconds(30)).ignoreException(LockUnavailableException.class)
                    .until(() -> provider.tryAcquire("conn", LeaseOptions.ofDefaults()), Optional::isPresent)
                    .orElseThrow();
            assertThat(next.token().isNewerThan(lease.token())).isTrue();
            next.release();
        }
    }
}
