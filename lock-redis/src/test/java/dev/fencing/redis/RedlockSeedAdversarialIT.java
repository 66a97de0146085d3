package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Adversarial checks of Redlock's shared seed: processes whose clocks are just inside the
 * tolerance on either side, racing with short TTLs that expire (never released), one node
 * answering late, counters set by hand, a node restored from an older counter.
 */
class RedlockSeedAdversarialIT {

    private static final long TOLERANCE_MICROS = 25_000;

    private final List<RedisTestServer> nodes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void startNodes() {
        for (int i = 0; i < 3; i++) {
            nodes.add(RedisTestServer.launch());
        }
    }

    @AfterEach
    void stopNodes() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
        nodes.forEach(RedisTestServer::stop);
    }

    private RedlockProvider process(List<String> uris, long skewMicros) {
        return process(uris, skewMicros, Duration.ofMillis(200));
    }

    private RedlockProvider process(List<String> uris, long skewMicros, Duration nodeTimeout) {
        RedlockProvider provider = RedlockProvider.builder(uris).requestTimeout(nodeTimeout)
                .wallClockMicros(() -> RedlockProvider.systemWallClockMicros() + skewMicros).build();
        closeables.add(0, provider);
        return provider;
    }

    private LaggingProxy proxy(RedisTestServer node) {
        LaggingProxy proxy = LaggingProxy.start(node.host(), node.port());
        closeables.add(proxy);
        return proxy;
    }

    private record Grant(long token, long requestedAt, long grantedAt, int process) {}

    /**
     * Four processes, clocks 24.9 ms ahead, 24.9 ms behind, 12 ms ahead and in step; two of them
     * reach the third node through a proxy that lags its replies past the node timeout, so their
     * grants are majorities of two whose script lands late on the third. TTL 150 ms, never
     * released: each grant follows an expiry. A grant requested after another was granted must
     * carry a larger token, and no two grants share one.
     */
    @Test
    void racingProcessesWithSkewedClocksAndExpiryNeverRepeatOrLowerATokenOnline() throws Exception {
        List<String> direct = nodes.stream().map(RedisTestServer::uri).toList();
        LaggingProxy lateC = proxy(nodes.get(2));
        lateC.lagReplies(Duration.ofMillis(80));
        List<String> viaLateC = List.of(nodes.get(0).uri(), nodes.get(1).uri(), lateC.redisUri());
        long[] skews = {TOLERANCE_MICROS - 100, -(TOLERANCE_MICROS - 100), 12_000, 0};
        List<RedlockProvider> processes = List.of(process(viaLateC, skews[0]), process(direct, skews[1]),
                process(viaLateC, skews[2]), process(direct, skews[3]));
        String resource = "seed-race-" + UUID.randomUUID();
        LeaseOptions options = LeaseOptions.ofTtl(Duration.ofMillis(150));
        List<Grant> grants = Collections.synchronizedList(new ArrayList<>());
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        ExecutorService threads = Executors.newFixedThreadPool(processes.size());
        try {
            for (int p = 0; p < processes.size(); p++) {
                int index = p;
                RedlockProvider process = processes.get(p);
                threads.submit(() -> {
                    while (System.nanoTime() < until) {
                        long requestedAt = System.nanoTime();
                        try {
                            Optional<Lease> lease = process.tryAcquire(resource, options);
                            long grantedAt = System.nanoTime();
                            lease.ifPresent(l -> grants.add(new Grant(l.token().value(), requestedAt, grantedAt, index)));
                        } catch (LockUnavailableException e) {
                            // a silent majority under load: try again
                        }
                    }
                    return null;
                });
            }
        } finally {
            threads.shutdown();
            assertThat(threads.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        }
        List<Grant> all = List.copyOf(grants);
        System.out.println("RedlockSeedAdversarialIT race: " + all.size() + " grants, write-backs per process "
                + processes.stream().map(RedlockProvider::tokenWriteBacks).toList());
        assertThat(all.size()).as("grants in 8 s").isGreaterThan(10);
        List<String> violations = new ArrayList<>();
        for (Grant earlier : all) {
            for (Grant later : all) {
                if (later != earlier && later.requestedAt() > earlier.grantedAt() && later.token() <= earlier.token()) {
                    violations.add(later + " requested after " + earlier + " was granted");
                }
            }
        }
        assertThat(violations).as("grants whose token is not above one granted before").isEmpty();
        assertThat(all.stream().mapToLong(Grant::token).distinct().count()).as("distinct tokens").isEqualTo(all.size());
    }

    /**
     * A grant by a process 24.9 ms ahead, answered by nodes A and B (C held by a foreign owner, so
     * it keeps its counter); B then comes back from an older counter after being away 3x the
     * tolerance; a process 24.9 ms behind then wins on B and C (A held elsewhere). Inside the
     * documented assumption (away longer than twice the tolerance, clocks equal): the token must
     * be larger.
     */
    @Test
    void aRestoredNodeAwayLongerThanTwiceTheToleranceStillGivesALargerToken() throws Exception {
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        // no proxy lags here: a generous node timeout keeps a loaded machine from failing a round
        RedlockProvider ahead = process(uris, TOLERANCE_MICROS - 100, Duration.ofSeconds(2));
        RedlockProvider behind = process(uris, -(TOLERANCE_MICROS - 100), Duration.ofSeconds(2));
        String resource = "seed-restore-" + UUID.randomUUID();
        RedisTestServer a = nodes.get(0);
        RedisTestServer b = nodes.get(1);
        RedisTestServer c = nodes.get(2);
        String lockKey = ahead.lockKey(resource);
        String tokenKey = ahead.tokenKey(resource);
        for (int round = 0; round < 20; round++) {
            Object snapshotOfB = b.command("GET", tokenKey);
            c.command("SET", lockKey, "someone-else", "PX", "60000");
            long first;
            try (Lease lease = ahead.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow()) {
                first = lease.token().value();
            }
            c.command("DEL", lockKey);
            // B restored from the snapshot taken before the grant, after being away 75 ms
            long awayFrom = System.nanoTime();
            while (System.nanoTime() - awayFrom < TimeUnit.MICROSECONDS.toNanos(3 * TOLERANCE_MICROS)) {
                Thread.onSpinWait();
            }
            if (snapshotOfB == null) {
                b.command("DEL", tokenKey);
            } else {
                b.command("SET", tokenKey, (String) snapshotOfB);
            }
            a.command("SET", lockKey, "someone-else", "PX", "60000");
            long second;
            try (Lease lease = behind.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow()) {
                second = lease.token().value();
            }
            a.command("DEL", lockKey);
            assertThat(second).as("round %d: token after the restore vs the one before", round).isGreaterThan(first);
        }
    }
}
