package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.WatchersDebug;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Session expiry, a suspended connection, the token's source and the queue, against a real ZooKeeper. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperFaultsIT {

    private final ZooKeeperTestServer zooKeeper = TestServers.zooKeeper();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final String resource = "faults-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    private CuratorFramework observer;

    @BeforeEach
    void observe() {
        observer = track(CuratorFrameworkFactory.newClient(zooKeeper.connectString(), new RetryOneTime(100)));
        observer.start();
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable each : closing) {
            each.close();
        }
    }

    private <C extends AutoCloseable> C track(C closeable) {
        closing.add(0, closeable);
        return closeable;
    }

    private ZooKeeperLockProvider provider(RecordingListener listener) {
        return track(ZooKeeperLockProvider.builder(zooKeeper.connectString())
                .serverTickTime(ZooKeeperTestServer.TICK_TIME).listener(listener).build());
    }

    @Test
    void anExpiredSessionLosesTheLeaseAndTheNextHolderGetsALargerToken() throws Exception {
        RecordingListener events = new RecordingListener();
        ZooKeeperLockProvider holder = provider(events);
        ZooKeeperLockProvider next = provider(new RecordingListener());
        Lease lease = holder.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(60))).orElseThrow();
        assertThat(next.tryAcquire(resource, LeaseOptions.ofDefaults())).isEmpty();

        zooKeeper.expireSession(holder.curator().getZookeeperClient().getZooKeeper());

        try (Lease taken = next.acquire(resource, LeaseOptions.ofDefaults().withWaitTimeout(Duration.ofSeconds(20)))) {
            assertThat(taken.token().isNewerThan(lease.token())).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> events.lost() == 1);
            assertThat(lease.isValid()).isFalse();
            assertThatThrownBy(() -> lease.renew(Duration.ofSeconds(60))).isInstanceOf(LeaseLostException.class);
            assertThatThrownBy(lease::release).isInstanceOf(LeaseLostException.class);
            assertThat(taken.isValid()).as("the old holder's give-up must not touch the new holder's znode").isTrue();
            assertThat(next.inspect(resource).orElseThrow().holder()).contains(taken.ownerId());
        }
    }


    @Test
    void theTokenIsTheCzxidNotTheSequenceWhichRestartsWithTheParent() throws Exception {
        ZooKeeperLockProvider provider = provider(new RecordingListener());
        String parent = provider.lockPath(resource);
        long lastToken = 0;
        long lastSequence = -1;
        for (int i = 0; i < 3; i++) {
            try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                String holder = onlyChild(parent);
                Stat stat = observer.checkExists().forPath(parent + "/" + holder);
                assertThat(lease.token().value()).as("token is the holder znode's czxid").isEqualTo(stat.getCzxid());
                assertThat(lease.token().value()).isGreaterThan(lastToken);
                lastToken = lease.token().value();
                lastSequence = ZooKeeperPaths.sequenceOf(holder);
            }
        }
        assertThat(lastSequence).as("several znodes were created under the parent").isGreaterThanOrEqualTo(2);

        observer.delete().forPath(parent); // empty now: what ZooKeeper's container manager does to it in time

        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            long sequence = ZooKeeperPaths.sequenceOf(onlyChild(parent));
            assertThat(sequence).as("the sequence restarted with the re-created parent").isLessThan(lastSequence);
            assertThat(lease.token().value()).as("the czxid did not").isGreaterThan(lastToken);
        }
    }

    private String onlyChild(String parent) throws Exception {
        List<String> children = observer.getChildren().forPath(parent);
        assertThat(children).hasSize(1);
        return children.get(0);
    }

    @Test
    void aSuspendedConnectionLosesTheLeaseOnceTheSessionCouldHaveEnded() throws Exception {
        ZooKeeperTestServer own = ZooKeeperTestServer.launch();
        RecordingListener events = new RecordingListener();
        ZooKeeperLockProvider provider = track(ZooKeeperLockProvider.builder(own.connectString())
                .sessionTimeout(Duration.ofSeconds(4)).connectTimeout(Duration.ofMillis(500)).listener(events).build());
        long started = System.nanoTime();
        Lease lease = provider.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(60))).orElseThrow();
        Duration session = Duration.ofMillis(provider.curator().getZookeeperClient().getLastNegotiatedSessionTimeoutMs());

        // half a session timeout with no request of the lease: Curator's own LOST would come a whole
        // session timeout after the disconnection, too late — the server may end the session earlier
        await().during(session.dividedBy(2)).atMost(session.plusSeconds(30)).until(lease::isValid); // invalid stays so
        own.stop();

        assertThat(lease.isValid()).as("within the session timeout the session may still live").isTrue();
        await().atMost(session.plusSeconds(5)).until(() -> events.lost() == 1);
        Duration lostAfter = Duration.ofNanos(System.nanoTime() - started);
        assertThat(lease.isValid()).isFalse();
        assertThat(lostAfter).as("lost within a session timeout of the acquire request, its last answered one (+ 1 s)")
                .isLessThan(session.plusSeconds(1));
        assertThatThrownBy(() -> lease.requireValidFor(Duration.ZERO)).isInstanceOf(LeaseLostException.class);
    }

    /**
     * Every watch a provider's session holds on {@code parent} and below (an exists watch on a live
     * znode is kept as a data watch; Curator itself watches {@code /zookeeper/config}).
     */
    private static List<String> watches(ZooKeeperLockProvider provider, String parent) throws Exception {
        ZooKeeper zk = provider.curator().getZookeeperClient().getZooKeeper();
        List<String> all = new ArrayList<>(WatchersDebug.getDataWatches(zk));
        all.addAll(WatchersDebug.getExistWatches(zk));
        all.addAll(WatchersDebug.getChildWatches(zk));
        return all.stream().filter(path -> path.startsWith(parent)).toList();
    }

    /**
     * The article's recipe without a herd: while one lease is held and two other processes wait,
     * the queue holds the lease and one ticket per waiting process, and each ticket watches only
     * the znode just before it — never the holder's alone for all.
     */
    @Test
    void eachWaitingProcessStandsInLineWatchingOnlyItsPredecessor() throws Exception {
        ZooKeeperLockProvider holder = provider(new RecordingListener());
        ZooKeeperLockProvider second = provider(new RecordingListener());
        ZooKeeperLockProvider third = provider(new RecordingListener());
        String parent = holder.lockPath(resource);
        LeaseOptions waiting = LeaseOptions.ofDefaults().withWaitTimeout(Duration.ofSeconds(30));
        Lease held = holder.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Lease> secondWaits = pool.submit(() -> second.acquire(resource, waiting));
            await().atMost(Duration.ofSeconds(10)).until(() -> observer.getChildren().forPath(parent).size() == 2);
            Future<Lease> thirdWaits = pool.submit(() -> third.acquire(resource, waiting));
            await().atMost(Duration.ofSeconds(10)).until(() -> observer.getChildren().forPath(parent).size() == 3);
            List<String> queue = observer.getChildren().forPath(parent).stream()
                    .sorted(java.util.Comparator.comparingLong(ZooKeeperPaths::sequenceOf)).toList();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(watches(second, parent)).containsExactly(parent + "/" + queue.get(0));
                assertThat(watches(third, parent)).containsExactly(parent + "/" + queue.get(1));
            });

            held.release();
            try (Lease first = secondWaits.get(20, TimeUnit.SECONDS)) {
                assertThat(first.token().value()).as("the second in line holds with its ticket's czxid")
                        .isEqualTo(observer.checkExists().forPath(parent + "/" + queue.get(1)).getCzxid());
                assertThat(thirdWaits.isDone()).isFalse();
            }
            try (Lease last = thirdWaits.get(20, TimeUnit.SECONDS)) {
                assertThat(last.token().isNewerThan(held.token())).isTrue();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> observer.getChildren().forPath(parent).isEmpty());
        } finally {
            pool.shutdownNow();
        }
    }
}
