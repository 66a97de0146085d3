package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.servers.ZooKeeperClusterTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A holder connected to a follower that is cut off from its leader, on a 3-member ensemble whose
 * quorum links pass through proxies. The follower keeps its clients connected and answers reads
 * from its own copy until it notices the silence ({@code syncLimit × tickTime}, 10 s here), while the
 * leader ends the holder's session after its 2 s timeout and grants the lock to another client. A
 * renewal answered from the follower's copy would keep the old lease valid past that takeover;
 * renewals must be confirmed by the leader.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperFollowerPartitionIT {

    private static final int TICK_MILLIS = 500;
    private static final int SYNC_LIMIT = 20;
    private static final Duration SESSION = Duration.ofSeconds(2);
    /** Auto-renewed every 400 ms: see the Javadoc of the test for why it is below the session timeout. */
    private static final Duration TTL = Duration.ofMillis(1200);
    private static final Duration MARGIN = Duration.ofMillis(300);

    private final ZooKeeperClusterTestServer ensemble = ZooKeeperClusterTestServer.launchPartitionable(TICK_MILLIS,
            SYNC_LIMIT);
    private final List<ZooKeeperLockProvider> providers = new ArrayList<>();

    @AfterEach
    void close() {
        providers.forEach(ZooKeeperLockProvider::close);
        ensemble.heal();
        ensemble.close();
    }

    /**
     * The lease, auto-renewed, must be invalid by the time the leader has granted the lock to
     * another client, and at most its TTL after the cut (plus a margin). Its TTL is below the
     * session timeout by more than the renewal interval: the leader hears of the session through
     * the follower, which reports each half tick the sessions its clients touched, so the last
     * touch the leader heard of before the cut may be the renewal before the last one.
     */
    @Test
    void aHolderOnAFollowerCutOffFromTheLeaderIsInvalidBeforeTheLeaderGrantsTheLockAgain() throws Exception {
        InstanceSpec leader = await().atMost(Duration.ofSeconds(30)).until(ensemble::leader, Optional::isPresent)
                .orElseThrow();
        InstanceSpec follower = ensemble.members().stream().filter(m -> !m.equals(leader)).findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(30)).until(() -> ensemble.mode(follower).equals(Optional.of("follower")));
        AtomicInteger renewedAfterCut = new AtomicInteger();
        long[] cutAt = {Long.MAX_VALUE};
        ZooKeeperLockProvider holder = provider(ensemble.connectString(follower), new FencingListener() {
            @Override
            public void onRenewed(Lease lease) {
                if (System.nanoTime() - cutAt[0] > 0) {
                    renewedAfterCut.incrementAndGet();
                }
            }
        });
        ZooKeeperLockProvider next = provider(ensemble.connectString(leader), FencingListener.NONE);
        String resource = "follower-partition";
        Lease lease = holder.tryAcquire(resource, LeaseOptions.builder().ttl(TTL).autoRenew(true).build())
                .orElseThrow();
        assertThat(Duration.ofMillis(holder.curator().getZookeeperClient().getLastNegotiatedSessionTimeoutMs()))
                .isEqualTo(SESSION);
        await().during(TTL.multipliedBy(2)).atMost(TTL.plusSeconds(30)).until(lease::isValid); // renewals run; invalid stays so

        long cut = System.nanoTime();
        cutAt[0] = cut;
        ensemble.cut(follower, leader);

        long[] takenAt = {0};
        boolean[] oldValidAtTakeover = {true};
        CompletableFuture<Lease> takeover = CompletableFuture.supplyAsync(() -> {
            Lease taken = Takeover.waitFor(next, resource);
            oldValidAtTakeover[0] = lease.isValid();
            takenAt[0] = System.nanoTime();
            return taken;
        });
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5)).until(() -> !lease.isValid());
        Duration invalidAfterCut = Duration.ofNanos(System.nanoTime() - cut);
        Lease taken = takeover.get(40, TimeUnit.SECONDS);
        assertThat(ensemble.mode(follower)).as("the follower has not noticed the cut yet: it still serves")
                .contains("follower");
        assertThat(ensemble.connectedTo(holder.curator().getZookeeperClient().getZooKeeper()))
                .as("the holder is still connected to the follower").contains(follower);
        System.out.printf("the next holder got the lock %d ms after the cut; the old lease was %s then, invalid %d"
                + " ms after the cut; %d renewals confirmed after the cut%n", (takenAt[0] - cut) / 1_000_000,
                oldValidAtTakeover[0] ? "VALID" : "invalid", invalidAfterCut.toMillis(), renewedAfterCut.get());

        assertThat(taken.token().isNewerThan(lease.token())).isTrue();
        assertThat(oldValidAtTakeover[0]).as("the old lease was still valid when the leader granted the lock again")
                .isFalse();
        assertThat(invalidAfterCut).as("invalid within its TTL of the cut").isLessThanOrEqualTo(TTL.plus(MARGIN));
        taken.release();
    }

    private ZooKeeperLockProvider provider(String connectString, FencingListener listener) {
        // the 1 s connection timeout keeps a renewal's failure quick after the cut; a busy machine can miss it while
        // connecting, so the build is tried until it connects
        ZooKeeperLockProvider provider = await().atMost(Duration.ofSeconds(60))
                .ignoreExceptionsInstanceOf(dev.fencing.core.LockUnavailableException.class)
                .until(() -> ZooKeeperLockProvider.builder(connectString).sessionTimeout(SESSION)
                        .connectTimeout(Duration.ofSeconds(1)).listener(listener).build(), built -> true);
        providers.add(provider);
        return provider;
    }
}
