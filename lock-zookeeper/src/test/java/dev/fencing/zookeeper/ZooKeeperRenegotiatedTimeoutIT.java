package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.ZooKeeperClusterTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * ZooKeeper negotiates the session timeout again at every reconnect, within the limits of the server
 * reached, and the leader then ends the session on what that server reports. Found by an adversarial
 * review of the session bound, which kept the timeout of the session's creation: 15 of 15 runs had
 * the old lease valid (about 36 s left) when the leader deleted its znode and granted the lock again.
 *
 * <p>3 members, tick 200 ms, syncLimit 100 (a cut follower notices after 20 s): member 0 accepts
 * sessions up to 40 s, the others up to 2 s, as a rolling change of {@code maxSessionTimeout} leaves
 * them. The holder gets a 40 s session on member 0 and a lease of TTL 40 s, auto-renewed; member 0's
 * link to it breaks, it reconnects in the same session to a follower that negotiates 2 s, and that
 * follower is cut from the leader at once. A client on the leader watches the holder's znode and
 * waits for the lock: the old lease must be invalid when the znode goes, and at the takeover.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZooKeeperRenegotiatedTimeoutIT {

    private static final int TICK_MILLIS = 200;
    private static final Duration SESSION = Duration.ofSeconds(40);
    private static final int SHORT_MAX_MILLIS = 2000;

    private final List<AutoCloseable> closeLast = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closeLast.size() - 1; i >= 0; i--) {
            closeLast.get(i).close();
        }
        closeLast.clear();
    }

    @RepeatedTest(2)
    void aLeaseEndsBeforeTheLeaderEndsItsSessionOnTheTimeoutRenegotiatedAtAReconnect() throws Exception {
        ZooKeeperClusterTestServer ensemble = ZooKeeperClusterTestServer.launchPartitionable(TICK_MILLIS, 100,
                member -> Map.of("maxSessionTimeout", Integer.toString(member == 0 ? (int) SESSION.toMillis()
                        : SHORT_MAX_MILLIS)));
        closeLast.add(ensemble);
        InstanceSpec leader = await().atMost(Duration.ofSeconds(60)).until(ensemble::leader, Optional::isPresent)
                .orElseThrow();
        InstanceSpec longMember = ensemble.members().get(0);
        InstanceSpec shortFollower = ensemble.members().stream()
                .filter(m -> !m.equals(longMember) && !m.equals(leader)).findFirst().orElseThrow();
        await().atMost(Duration.ofSeconds(60)).until(() -> ensemble.mode(shortFollower).equals(Optional.of("follower")));

        // the holder: member 0 through a proxy this test can close, or the short follower; built until on member 0
        PartitionProxy toLong = PartitionProxy.start("127.0.0.1", longMember.getPort());
        closeLast.add(toLong::close);
        String holderConnect = "127.0.0.1:" + toLong.port() + "," + ensemble.connectString(shortFollower);
        ZooKeeperLockProvider holder = null;
        for (int tries = 0; tries < 20 && holder == null; tries++) {
            ZooKeeperLockProvider candidate = provider(holderConnect);
            if (candidate.curator().getZookeeperClient().getLastNegotiatedSessionTimeoutMs() == SESSION.toMillis()) {
                holder = candidate;
            }
        }
        assertThat(holder).as("a holder on member 0, with a 40 s session").isNotNull();
        ZooKeeperLockProvider next = provider(ensemble.connectString(leader));
        String resource = "renegotiated";
        Lease lease = holder.tryAcquire(resource, LeaseOptions.builder().ttl(SESSION).autoRenew(true).build())
                .orElseThrow();
        long sessionId = holder.curator().getZookeeperClient().getZooKeeper().getSessionId();

        toLong.close(); // member 0's link breaks: the client reconnects, same session, to the short follower
        ZooKeeperLockProvider h = holder;
        await().atMost(Duration.ofSeconds(30)).until(() -> h.curator().getZookeeperClient().isConnected()
                && h.curator().getZookeeperClient().getLastNegotiatedSessionTimeoutMs() == SHORT_MAX_MILLIS);
        assertThat(holder.curator().getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(sessionId);

        String parent = holder.lockPath(resource);
        List<String> children = next.curator().getChildren().forPath(parent);
        assertThat(children).hasSize(1);
        CompletableFuture<Boolean> validAtDeletion = new CompletableFuture<>();
        next.curator().checkExists().usingWatcher((Watcher) event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                validAtDeletion.complete(lease.isValid());
            }
        }).forPath(parent + "/" + children.get(0));
        ensemble.cut(shortFollower, leader); // the leader ends the session about 2 s after it last heard of it

        CompletableFuture<Boolean> validAtTakeover = CompletableFuture.supplyAsync(() -> Takeover.oldLeaseValidAtTakeover(next, resource, lease));
        boolean stillValid = validAtTakeover.get(60, TimeUnit.SECONDS);
        assertThat(ensemble.mode(shortFollower)).as("the cut follower has not noticed yet").contains("follower");
        assertThat(validAtDeletion.get(60, TimeUnit.SECONDS))
                .as("the old lease was still valid when the leader had ended its session and deleted its znode")
                .isFalse();
        assertThat(stillValid).as("the old lease was still valid when the leader had granted the lock again")
                .isFalse();
    }

    private ZooKeeperLockProvider provider(String connectString) {
        ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(connectString).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(2)).listener(FencingListener.NONE).build();
        closeLast.add(provider);
        return provider;
    }
}
