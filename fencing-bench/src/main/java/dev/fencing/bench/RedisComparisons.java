package dev.fencing.bench;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.testkit.servers.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Comparisons 1, 2, 3 and 8: this toolkit's Redis lock against Redisson and a raw {@code SET NX}
 * script — one thread, 16 threads, contended hand-off, and the keys each leaves behind.
 */
final class RedisComparisons extends Comparisons {

    RedisComparisons(BenchSession session) {
        super(session);
    }

    // ---- 1, 2: Redis cycle, single thread and 16 threads ----

    void redisComparisons(RedisTestServer redis, BenchRunner runner, BenchRunner threaded) throws Exception {
        RedisClient lettuce = RedisClient.create(redis.uri());
        resources.push(lettuce::shutdown);
        StatefulRedisConnection<String, String> raw = lettuce.connect();
        resources.push(raw);
        RedisCommands<String, String> cmd = raw.sync();
        String unlock = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
        String unlockSha = cmd.scriptLoad(unlock);
        RedisLockProvider ours = RedisLockProvider.create(redis.uri());
        resources.push(ours);
        RedissonClient redisson = redisson(redis.uri());
        LeaseOptions lease = LeaseOptions.ofTtl(Duration.ofSeconds(30));

        List<BenchRunner.Contender> contenders = List.of(
                new BenchRunner.Contender("raw Lettuce SET NX PX + owner-checked DEL script (floor)", (w, i) -> {
                    String key = "raw:" + w;
                    cmd.set(key, "owner-" + w, SetArgs.Builder.nx().px(30_000));
                    cmd.evalsha(unlockSha, ScriptOutputType.INTEGER, new String[] {key}, "owner-" + w);
                }),
                new BenchRunner.Contender("fencing RedisLockProvider tryAcquire + release", (w, i) ->
                        ours.tryAcquire("ours-" + w, lease).orElseThrow().release()),
                new BenchRunner.Contender("Redisson RLock lock + unlock", (w, i) -> {
                    RLock lock = redisson.getLock("rlock-" + w);
                    lock.lock(30, TimeUnit.SECONDS);
                    lock.unlock();
                }),
                new BenchRunner.Contender("Redisson RFencedLock lockAndGetTokenAsync + unlock", (w, i) -> {
                    RFencedLock lock = redisson.getFencedLock("rfenced-" + w);
                    lock.lockAndGetTokenAsync(30, TimeUnit.SECONDS).toCompletableFuture().join();
                    lock.unlock();
                }));
        if (selected(1)) {
            add(1, "Redis lock acquire+release, one thread, uncontended", runner.latency(contenders), Map.of());
            CycleAccounting.addTo(results.get(results.size() - 1),
                    CycleAccounting.of(contenders, RequestCounters.redis(cmd)));
        }
        if (selected(2)) {
            add(2, "Redis lock acquire+release, 16 threads on 16 resources (throughput)", threaded.throughput(contenders, 16),
                    Map.of());
        }
    }

    private RedissonClient redisson(String uri) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(4).setConnectionPoolSize(32);
        RedissonClient client = Redisson.create(config);
        resources.push(client::shutdown);
        return client;
    }

    // ---- 3: contended hand-off ----

    void contended(RedisTestServer redis, Duration duration) throws Exception {
        RedisLockProvider ours = RedisLockProvider.create(redis.uri());
        resources.push(ours);
        RedissonClient redisson = redisson(redis.uri());
        List<Map<String, Object>> rows = new ArrayList<>();
        double[] ratios = new double[repeats];
        for (int round = 0; round < repeats; round++) {
            rows.add(handOff("fencing RedisLockProvider acquire + release", duration, (w, stop) -> {
                Lease lease = ours.acquire("contended-ours", LeaseOptions.builder().ttl(Duration.ofSeconds(30))
                        .waitTimeout(Duration.ofSeconds(30)).build());
                return lease::release;
            }));
            rows.add(handOff("Redisson RLock lock + unlock", duration, (w, stop) -> {
                RLock lock = redisson.getLock("contended-redisson");
                lock.lock(30, TimeUnit.SECONDS);
                return lock::unlock;
            }));
            ratios[round] = ((Number) rows.get(rows.size() - 2).get("opsPerSecond")).doubleValue()
                    / Math.max(1, ((Number) rows.get(rows.size() - 1).get("opsPerSecond")).doubleValue());
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("comparison", 3);
        result.put("title", "Contended hand-off: 8 workers on one resource, " + duration.toSeconds()
                + " s per contender per round, " + repeats + " interleaved round(s), one per repeat");
        result.put("repeats", repeats);
        result.put("oursToRedissonAcquisitions", spread(ratios));
        result.put("rows", rows);
        results.add(result);
    }

    @FunctionalInterface
    private interface Acquirer {
        Runnable acquire(int worker, AtomicReference<Boolean> stop) throws Exception;
    }

    private static Map<String, Object> handOff(String name, Duration duration, Acquirer acquirer) throws Exception {
        int workers = 8;
        AtomicLong lastRelease = new AtomicLong();
        AtomicInteger lastHolder = new AtomicInteger(-1);
        List<Long> handOffs = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger toOther = new AtomicInteger();
        AtomicInteger total = new AtomicInteger();
        int[] perWorker = new int[workers];
        long end = System.nanoTime() + duration.toNanos();
        AtomicReference<Boolean> stop = new AtomicReference<>(false);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        Runnable release = acquirer.acquire(worker, stop);
                        long acquired = System.nanoTime();
                        int previous = lastHolder.getAndSet(worker);
                        if (previous >= 0 && previous != worker) {
                            handOffs.add(acquired - lastRelease.get());
                            toOther.incrementAndGet();
                        }
                        total.incrementAndGet();
                        perWorker[worker]++;
                        lastRelease.set(System.nanoTime());
                        release.run();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        long[] sorted = handOffs.stream().mapToLong(Long::longValue).sorted().toArray();
        int min = Arrays.stream(perWorker).min().orElse(0);
        int max = Arrays.stream(perWorker).max().orElse(1);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("contender", name);
        row.put("acquisitions", total.get());
        row.put("opsPerSecond", Math.round(total.get() / (duration.toNanos() / 1e9)));
        row.put("handOffP50Micros", BenchRunner.round(BenchRunner.percentile(sorted, 0.5) / 1e3));
        row.put("handOffP99Micros", BenchRunner.round(BenchRunner.percentile(sorted, 0.99) / 1e3));
        row.put("handedToAnotherThread", BenchRunner.round((double) toOther.get() / Math.max(1, total.get())));
        row.put("leastToMostServed", BenchRunner.round((double) min / Math.max(1, max)));
        return row;
    }

    // ---- 8: keys left behind ----

    void leftoverKeys(int cycles) throws Exception {
        RedisTestServer fresh = closeLater(RedisTestServer.launch());
        int resourceCount = 10;
        try (RedisLockProvider ours = RedisLockProvider.create(fresh.uri())) {
            for (int i = 0; i < cycles; i++) {
                ours.tryAcquire("leak-" + (i % resourceCount), LeaseOptions.ofDefaults()).orElseThrow().release();
            }
        }
        long oursKeys = Long.parseLong(String.valueOf(fresh.command("DBSIZE")));
        fresh.flushAll();
        RedissonClient redisson = redisson(fresh.uri());
        for (int i = 0; i < cycles; i++) {
            RLock lock = redisson.getLock("leak-" + (i % resourceCount));
            lock.lock(30, TimeUnit.SECONDS);
            lock.unlock();
        }
        long redissonKeys = Long.parseLong(String.valueOf(fresh.command("DBSIZE")));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("comparison", 8);
        result.put("title", "Keys left behind after " + cycles + " acquire+release cycles on " + resourceCount + " resources");
        result.put("rows", List.of(
                Map.of("contender", "fencing RedisLockProvider", "keysLeft", oursKeys, "expected", resourceCount
                        + " token counters (idle expiry 30 days)"),
                Map.of("contender", "Redisson RLock (counted right after the run)", "keysLeft", redissonKeys)));
        results.add(result);
    }
}
