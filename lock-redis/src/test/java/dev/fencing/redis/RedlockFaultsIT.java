package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Redlock under node failures, on five redis-server processes of its own (killing them disturbs no other test). */
class RedlockFaultsIT {

    private final List<RedisTestServer> nodes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void startNodes() {
        for (int i = 0; i < 5; i++) {
            nodes.add(RedisTestServer.launch());
        }
    }

    @AfterEach
    void stopNodes() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
        for (RedisTestServer node : nodes) {
            try {
                node.stop();
            } catch (RuntimeException alreadyDown) {
                // killed by the test
            }
        }
    }

    private RedlockProvider redlock(List<String> uris) {
        RedlockProvider provider = RedlockProvider.builder(uris).build();
        closeables.add(provider);
        return provider;
    }

    private List<String> uris() {
        return nodes.stream().map(RedisTestServer::uri).toList();
    }

    private static String resource() {
        return "redlock-" + UUID.randomUUID();
    }

    @Test
    void withTwoOfFiveNodesDownLocksAreStillGrantedAndTokensStillIncrease() throws Exception {
        RedlockProvider locks = redlock(uris());
        String resource = resource();
        long before;
        try (Lease lease = locks.acquire(resource, LeaseOptions.ofDefaults())) {
            before = lease.token().value();
        }
        nodes.get(0).kill();
        nodes.get(1).kill();
        long previous = before;
        for (int i = 0; i < 5; i++) {
            try (Lease lease = locks.acquire(resource, LeaseOptions.ofDefaults())) {
                assertThat(lease.token().value()).isGreaterThan(previous);
                previous = lease.token().value();
            }
        }
    }

    @Test
    void withThreeOfFiveDownAcquisitionFailsWithinTheWaitTimeoutAndLeavesNoLockKey() {
        RedlockProvider locks = redlock(uris());
        String resource = resource();
        nodes.get(0).kill();
        nodes.get(1).kill();
        nodes.get(2).kill();
        LeaseOptions options = LeaseOptions.builder().ttl(Duration.ofSeconds(5)).waitTimeout(Duration.ofMillis(700)).build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.acquire(resource, options))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(resource);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("gave up at the wait timeout, not later")
                .isLessThan(Duration.ofSeconds(10));
        for (RedisTestServer survivor : nodes.subList(3, 5)) {
            assertThat(survivor.command("EXISTS", locks.lockKey(resource))).isEqualTo("0");
        }
    }

    /**
     * Three nodes apply the acquire script but their replies arrive after the per-node timeout
     * (a proxy holds them back): no quorum in time, so the provider must unlock all five —
     * including the three whose answer it never saw.
     */
    @Test
    void nodesThatTookTheLockButWhoseReplyWasLostAreUnlockedByTheRollback() {
        List<String> uris = new ArrayList<>();
        List<LaggingProxy> proxies = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            LaggingProxy proxy = LaggingProxy.start(nodes.get(i).host(), nodes.get(i).port());
            closeables.add(proxy);
            proxies.add(proxy);
            uris.add(proxy.redisUri());
        }
        RedlockProvider locks = RedlockProvider.builder(uris).requestTimeout(Duration.ofMillis(100)).build();
        closeables.add(locks);
        // one grant first, so every node has the scripts cached: EVALSHA then runs at once, and only its reply lags
        locks.tryAcquire(resource(), LeaseOptions.ofDefaults()).orElseThrow().release();
        for (LaggingProxy lagging : proxies.subList(0, 3)) {
            lagging.lagReplies(Duration.ofMillis(600));
        }
        String resource = resource();
        assertThatThrownBy(() -> locks.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))))
                .as("a majority silent is unavailable, not 'held by someone else'")
                .isInstanceOf(LockUnavailableException.class);
        // the acquire may time out before a loaded machine even delivered the script: it runs
        // there all the same (before the rollback's unlock, on the same connection)
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (RedisTestServer lagging : nodes.subList(0, 3)) {
                assertThat(lagging.command("EXISTS", locks.tokenKey(resource))).as("the acquire script ran there")
                        .isEqualTo("1");
            }
        });
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (RedisTestServer node : nodes) {
                assertThat(node.command("EXISTS", locks.lockKey(resource))).as("lock key on %s (node %s of 5, holder %s,"
                        + " %s ms left)", node, nodes.indexOf(node), node.command("GET", locks.lockKey(resource)),
                        node.command("PTTL", locks.lockKey(resource))).isEqualTo("0");
            }
        });
    }

    /** Eight clients race for one resource: with full-jitter retries every one of them gets it, again and again. */
    @Test
    void racingClientsAllMakeProgressWithoutLivelock() throws Exception {
        String resource = resource();
        int clients = 8;
        int rounds = 4;
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                RedlockProvider locks = redlock(uris());
                done.add(pool.submit(() -> {
                    for (int round = 0; round < rounds; round++) {
                        try (Lease lease = locks.acquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(5))
                                .waitTimeout(Duration.ofSeconds(60)).build())) {
                            if (holders.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            tokens.add(lease.token().value());
                            holders.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps).as("two holders at once").hasValue(0);
        assertThat(tokens).hasSize(clients * rounds).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void withEveryNodeDownTryAcquireThrowsLockUnavailableNamingTheNodes() {
        RedlockProvider locks = redlock(uris());
        nodes.forEach(RedisTestServer::kill);
        String resource = resource();
        assertThatThrownBy(() -> locks.tryAcquire(resource, LeaseOptions.ofDefaults()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(resource)
                .hasMessageContaining("127.0.0.1:" + nodes.get(0).port())
                .hasMessageContaining("127.0.0.1:" + nodes.get(4).port());
    }

    @Test
    void withAMajorityDownTryAcquireThrowsLockUnavailableNotEmpty() {
        RedlockProvider locks = redlock(uris());
        nodes.get(1).kill();
        nodes.get(2).kill();
        nodes.get(3).kill();
        String resource = resource();
        assertThatThrownBy(() -> locks.tryAcquire(resource, LeaseOptions.ofDefaults()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + nodes.get(2).port())
                .hasMessageContaining("needs 3");
        for (RedisTestServer survivor : List.of(nodes.get(0), nodes.get(4))) {
            await().atMost(Duration.ofSeconds(5)).until(() -> "0".equals(survivor.command("EXISTS", locks.lockKey(resource))));
        }
    }

    @Test
    void aTtlBelowTheDriftMarginIsRefusedUpFront() {
        RedlockProvider locks = redlock(uris());
        String resource = resource();
        assertThatThrownBy(() -> locks.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofMillis(3))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0.003S")
                .hasMessageContaining("minimum of PT0.004S");
        RedlockProvider wide = RedlockProvider.builder(uris()).driftFactor(0.5).build();
        closeables.add(wide);
        assertThatThrownBy(() -> wide.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofMillis(12))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minimum of PT0.013S");
        for (RedisTestServer node : nodes) {
            assertThat(node.command("EXISTS", locks.tokenKey(resource))).as("nothing sent").isEqualTo("0");
        }
    }

    /**
     * One node is down and one answers late: a renewal or release that reached a majority (the
     * late node did apply it) is unclear by its deadline, not lost — the lease must not be
     * reported lost, neither by {@code renew}, nor by the watchdog, nor by {@code release}.
     */
    @Test
    void aLateNodeWhileTheOthersConfirmIsNotALostLease() {
        List<String> uris = new ArrayList<>();
        List<LaggingProxy> proxies = new ArrayList<>();
        for (RedisTestServer node : nodes) {
            LaggingProxy proxy = LaggingProxy.start(node.host(), node.port());
            closeables.add(proxy);
            proxies.add(proxy);
            uris.add(proxy.redisUri());
        }
        RecordingListener events = new RecordingListener();
        RedlockProvider locks = RedlockProvider.builder(uris).requestTimeout(Duration.ofMillis(100)).listener(events).build();
        closeables.add(locks);
        String resource = resource();
        Lease manual = locks.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        Lease watched = locks.tryAcquire(resource + "-w", LeaseOptions.builder().ttl(Duration.ofSeconds(3))
                .autoRenew(true).build()).orElseThrow();
        nodes.get(1).kill();
        nodes.get(2).kill();
        proxies.get(0).lagReplies(Duration.ofMillis(400));

        assertThatThrownBy(() -> manual.renew(Duration.ofSeconds(30)))
                .isInstanceOf(LockUnavailableException.class)
                .isNotInstanceOf(LeaseLostException.class);
        assertThat(manual.isValid()).isTrue();
        // the watchdog's first tick, at 1 s, is well within the lease's validity: no loss reported
        await().during(Duration.ofMillis(1600)).atMost(Duration.ofSeconds(30)).until(() -> events.lost() == 0); // a count: never back to 0
        assertThatThrownBy(manual::release)
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("not lost");
        await().atMost(Duration.ofSeconds(5)).until(() -> "0".equals(nodes.get(0).command("EXISTS", locks.lockKey(resource))));
        assertThat(watched.token().resource()).isEqualTo(resource + "-w"); // lapses with its TTL when the provider closes
    }
}
