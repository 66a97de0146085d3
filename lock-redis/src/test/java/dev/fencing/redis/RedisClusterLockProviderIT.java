package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.servers.RedisClusterTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The provider on a 3-master Redis Cluster started by the testkit (or {@code FENCING_REDIS_CLUSTER_URI}). */
class RedisClusterLockProviderIT extends LockProviderContract {

    private final RedisClusterTestServer cluster = TestServers.redisCluster();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedisLockProvider.clusterBuilder(cluster.seedUris().toArray(String[]::new)).listener(listener).build();
    }

    /** A provider on a 3-master cluster of its own, stopped once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        RedisClusterTestServer own = RedisClusterTestServer.launch(3);
        LockProvider provider = RedisLockProvider.clusterBuilder(own.seedUris().toArray(String[]::new)).build();
        own.nodes().forEach(RedisTestServer::stop);
        return provider;
    }

    @Override
    protected String whyNoUnclearReplies() {
        return "a cluster client follows the addresses in the topology the nodes announce, so a proxy in front of"
                + " the seed nodes is bypassed; the cluster provider acquires and gives back with the single-instance"
                + " provider's code, which RedisLockProviderIT and RedisUnclearAcquireIT run through the proxy";
    }

    private RedisLockProvider redisProvider() {
        return (RedisLockProvider) provider;
    }

    @Test
    void locksOnManyResourcesSpreadOverEveryMasterWithBothKeysOfAResourceInOneSlot() {
        Set<Integer> holders = new HashSet<>();
        for (int i = 0; i < 60; i++) {
            String resource = resource("r" + i);
            try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                String lockKey = redisProvider().lockKey(resource);
                String tokenKey = redisProvider().tokenKey(resource);
                assertThat(cluster.slotOf(lockKey)).as("slot of %s and %s", lockKey, tokenKey)
                        .isEqualTo(cluster.slotOf(tokenKey));
                List<RedisTestServer> lockHolders = cluster.nodesHolding(lockKey);
                assertThat(lockHolders).hasSize(1);
                assertThat(cluster.nodesHolding(tokenKey)).isEqualTo(lockHolders);
                assertThat(lockHolders.get(0).command("GET", lockKey)).isEqualTo(lease.ownerId());
                holders.add(cluster.nodes().indexOf(lockHolders.get(0)));
            }
        }
        assertThat(holders).as("masters that served a lock").hasSize(cluster.nodes().size());
    }

    @Test
    void aReleaseOnOneMasterWakesAWaiterSubscribedOnAnother() throws Exception {
        String resource = resource("r");
        LeaseOptions waiting = LeaseOptions.builder().ttl(Duration.ofSeconds(30)).waitTimeout(Duration.ofSeconds(60))
                .backoff(dev.fencing.core.Backoff.fixed(Duration.ofSeconds(50))).build();
        Lease first = provider.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        CompletableFuture<Long> next = provider.acquireAsync(resource, waiting)
                .thenApply(lease -> {
                    lease.release();
                    return lease.token().value();
                });
        // the waiter parks for a 50 s backoff: only the release notice can wake it in time
        await().atMost(Duration.ofSeconds(10)).until(() -> redisProvider().waitersFor(resource) == 1);
        long wakeUpsBefore = redisProvider().wakeUps();
        first.release();
        assertThat(next.get(20, TimeUnit.SECONDS)).isGreaterThan(first.token().value());
        assertThat(redisProvider().wakeUps()).isGreaterThan(wakeUpsBefore);
    }


    @Test
    void waitForReplicasIsRefusedOnACluster() {
        assertThatThrownBy(() -> RedisLockProvider.clusterBuilder(cluster.seedUris().get(0))
                .waitForReplicas(1, Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not available on a Redis Cluster");
        assertThatThrownBy(() -> RedisLockProvider.clusterBuilder())
                .hasMessageContaining("at least one seed URI");
    }
}
