package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Backoff;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiting process whose session ends loses its ticket and the watch on its predecessor with it
 * (ZooKeeper delivers the watch a session event, not a delete). Curator reconnects with a new
 * session, but nothing tells the waiting threads to stand in line again: the release that follows
 * wakes nobody, and the waiter sleeps out its backoff while the lock is free.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperWaiterSessionIT {

    private final ZooKeeperTestServer zooKeeper = TestServers.zooKeeper();

    @Test
    void aWaiterWhoseSessionExpiredIsStillWokenByTheNextRelease() throws Exception {
        String resource = "session-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        LeaseOptions waiting = LeaseOptions.ofTtl(Duration.ofSeconds(10)).withWaitTimeout(Duration.ofSeconds(25))
                .withBackoff(Backoff.fixed(Duration.ofSeconds(30)));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ZooKeeperLockProvider holder = ZooKeeperLockProvider.create(zooKeeper.connectString());
                ZooKeeperLockProvider inLine = ZooKeeperLockProvider.create(zooKeeper.connectString());
                CuratorFramework observer = CuratorFrameworkFactory.newClient(zooKeeper.connectString(),
                        new RetryOneTime(100))) {
            observer.start();
            String parent = holder.lockPath(resource);
            Lease held = holder.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(60))).orElseThrow();
            Future<Lease> waiter = pool.submit(() -> inLine.acquire(resource, waiting));
            await().atMost(Duration.ofSeconds(10)).until(() -> observer.getChildren().forPath(parent).size() == 2);

            ZooKeeper before = inLine.curator().getZookeeperClient().getZooKeeper();
            long oldSession = before.getSessionId();
            zooKeeper.expireSession(before);
            await().atMost(Duration.ofSeconds(20)).until(() -> observer.getChildren().forPath(parent).size() == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> inLine.curator().getZookeeperClient().isConnected()
                    && inLine.curator().getZookeeperClient().getZooKeeper().getSessionId() != oldSession);

            long releasedAt = System.nanoTime();
            held.release();
            try (Lease next = waiter.get(25, TimeUnit.SECONDS)) {
                assertThat(Duration.ofNanos(System.nanoTime() - releasedAt))
                        .as("the waiter got the released lock only after its backoff ran out")
                        .isLessThan(Duration.ofSeconds(5));
                assertThat(next.token().isNewerThan(held.token())).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

}
