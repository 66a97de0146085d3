package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
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
        RedlockProvider locks = RedlockProvider.builder(uris).nodeTimeout(Duration.ofMillis(100)).build();
        closeables.add(locks);
        // one grant first, so every node has the scripts cached: EVALSHA then runs at once, and only its reply lags
        locks.tryAcquire(resource(), LeaseOptions.ofDefaults()).orElseThrow().release();
        for (LaggingProxy lagging : proxies.subList(0, 3)) {
            lagging.lagReplies(Duration.ofMillis(600));
        }
        String resource = resource();
        assertThat(locks.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30)))).isEmpty();
        for (RedisTestServer lagging : nodes.subList(0, 3)) {
            assertThat(lagging.command("EXISTS", locks.tokenKey(resource))).as("the acquire script ran there").isEqualTo("1");
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            for (RedisTestServer node : nodes) {
                assertThat(node.command("EXISTS", locks.lockKey(resource))).as("lock key on %s", node).isEqualTo("0");
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
}
