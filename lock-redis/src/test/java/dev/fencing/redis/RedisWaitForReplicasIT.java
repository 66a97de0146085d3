package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.RedisTestServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code waitForReplicas} on a master with one real replica, its own pair of servers so pausing one disturbs no other test. */
class RedisWaitForReplicasIT {

    private static RedisTestServer master;
    private static RedisTestServer replica;

    @BeforeAll
    static void startMasterAndReplica() {
        master = RedisTestServer.launch();
        replica = RedisTestServer.launch("--replicaof", master.host(), Integer.toString(master.port()));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> String.valueOf(replica.command("INFO", "replication")).contains("master_link_status:up"));
    }

    @AfterAll
    static void stopServers() {
        if (replica != null) {
            replica.resume();
            replica.stop();
        }
        if (master != null) {
            master.stop();
        }
    }

    @Test
    void aGrantIsHandedOutOnceTheReplicaHasTheLockKey() {
        try (RedisLockProvider provider = RedisLockProvider.builder(master.uri())
                .waitForReplicas(1, Duration.ofSeconds(2)).build();
                Lease lease = provider.tryAcquire("replicated", LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(replica.command("GET", provider.lockKey("replicated"))).isEqualTo(lease.ownerId());
        }
    }

    @Test
    void aGrantTheReplicaDidNotAcknowledgeIsReleasedAndReported() {
        try (RedisLockProvider provider = RedisLockProvider.builder(master.uri())
                .waitForReplicas(1, Duration.ofMillis(300)).build()) {
            replica.pause();
            try {
                assertThatThrownBy(() -> provider.tryAcquire("unacknowledged", LeaseOptions.ofDefaults()))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("only 0 of 1 replicas acknowledged");
                assertThat(master.command("GET", provider.lockKey("unacknowledged"))).as("lock key left behind").isNull();
            } finally {
                replica.resume();
            }
        }
    }

    @Test
    void badReplicaSettingsAreRefused() {
        assertThatThrownBy(() -> RedisLockProvider.builder(master.uri()).waitForReplicas(-1, Duration.ofSeconds(1)))
                .hasMessageContaining("replicas must be between 0 (off) and 32, got -1");
        assertThatThrownBy(() -> RedisLockProvider.builder(master.uri()).waitForReplicas(1, Duration.ofMinutes(1)))
                .hasMessageContaining("timeout");
    }
}
