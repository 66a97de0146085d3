package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.ZooKeeperClusterTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Tokens across a leader change of a 3-member ensemble (curator-test's in-JVM TestingCluster). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperLeaderChangeIT {

    private final ZooKeeperClusterTestServer ensemble = ZooKeeperClusterTestServer.launch(3);
    private final List<ZooKeeperLockProvider> providers = new ArrayList<>();

    @AfterEach
    void close() {
        providers.forEach(ZooKeeperLockProvider::close);
        ensemble.close();
    }

    @Test
    void tokensKeepIncreasingAcrossALeaderChangeAndCarryTheNewEpoch() {
        ZooKeeperLockProvider first = provider();
        ZooKeeperLockProvider second = provider();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            grant(i % 2 == 0 ? first : second, tokens);
        }
        InstanceSpec leader = await().atMost(Duration.ofSeconds(30)).until(ensemble::leader, java.util.Optional::isPresent)
                .orElseThrow();

        ensemble.kill(leader);

        await().atMost(Duration.ofSeconds(60)).until(() -> ensemble.leader().filter(l -> !l.equals(leader)).isPresent());
        for (int i = 0; i < 4; i++) {
            grant(i % 2 == 0 ? first : second, tokens);
        }
        assertThat(tokens).as("tokens in grant order, across the leader change").isSorted().doesNotHaveDuplicates();
        long epochBefore = tokens.get(3) >>> 32;
        long epochAfter = tokens.get(4) >>> 32;
        assertThat(epochAfter).as("the czxid's epoch (high 32 bits) rose with the new leader").isGreaterThan(epochBefore);
    }

    private ZooKeeperLockProvider provider() {
        // a fresh ensemble answers once it has elected a leader: on a busy machine that took more than
        // the 2 s this test once gave the connection (run 33); the leader change is the point, not the start
        await().atMost(Duration.ofSeconds(60)).until(ensemble::leader, java.util.Optional::isPresent);
        ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(ensemble.connectString())
                .sessionTimeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(10)).build();
        providers.add(provider);
        return provider;
    }

    /** One grant, retried while the ensemble elects (requests fail with LockUnavailableException meanwhile). */
    private static void grant(ZooKeeperLockProvider provider, List<Long> tokens) {
        Lease lease = await().atMost(Duration.ofSeconds(60)).ignoreException(LockUnavailableException.class)
                .until(() -> provider.tryAcquire("leader-change", LeaseOptions.ofDefaults()), java.util.Optional::isPresent)
                .orElseThrow();
        tokens.add(lease.token().value());
        lease.release();
    }
}
