package dev.fencing.bench;


import dev.fencing.core.LeaseOptions;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.redis.RedlockProvider;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bench comparison 7: {@link RedlockProvider} on five redis-servers against {@link RedisLockProvider}
 * on one, acquire + release, one thread — reached directly, and through the testkit's
 * {@link LaggingProxy} in front of every server holding each reply back 0.2 ms and 1 ms, which
 * adds that much to every round trip to every node, as when the nodes run on other hosts. Both
 * providers go through the same kind of proxy at the same lag, and each table reports the round
 * trip a {@code PING} measured through one.
 *
 * <p>A third contender, Redlock with token seeding off, shows what the token write-back round
 * costs: with seeding each node answers its own clock in µs, so the nodes disagree and nearly every
 * grant writes the largest token back to a majority before it returns (a round trip more); without
 * seeding, counters in step agree and no grant does. The tables count write-backs per grant.
 */
final class RedlockBench {

    /** The reply lags of the three tables: none (servers reached directly), 0.2 ms and 1 ms. */
    static final List<Duration> LAGS = List.of(Duration.ZERO, Duration.ofNanos(200_000), Duration.ofMillis(1));

    private static final int NODES = 5;
    private static final int PINGS = 200;

    private final BenchRunner runner;

    RedlockBench(BenchRunner runner) {
        this.runner = runner;
    }

    /** One table: its title, what it measured beside the rows, and the rows. */
    record Table(String title, Map<String, Object> settings, List<BenchRunner.Row> rows) {}

    /** Runs the three tables on six servers of its own, stopped at the end. */
    List<Table> run() throws Exception {
        Deque<AutoCloseable> servers = new ArrayDeque<>();
        try {
            List<RedisTestServer> launched = new ArrayList<>();
            for (int i = 0; i <= NODES; i++) {
                RedisTestServer server = RedisTestServer.launch();
                servers.push(server::stop);
                launched.add(server);
            }
            List<Table> tables = new ArrayList<>();
            for (Duration lag : LAGS) {
                tables.add(table(launched.get(0), launched.subList(1, NODES + 1), lag));
            }
            return tables;
        } finally {
            closeAll(servers);
        }
    }

    private Table table(RedisTestServer singleServer, List<RedisTestServer> nodeServers, Duration lag) throws Exception {
        Deque<AutoCloseable> resources = new ArrayDeque<>();
        try {
            String single = reach(singleServer, lag, resources);
            List<String> nodes = new ArrayList<>();
            for (RedisTestServer node : nodeServers) {
                nodes.add(reach(node, lag, resources));
            }
            RedisLockProvider one = RedisLockProvider.create(single);
            resources.push(one);
            RedlockProvider redlock = RedlockProvider.builder(nodes).build();
            resources.push(redlock);
            RedlockProvider unseeded = RedlockProvider.builder(nodes).tokenSeeding(false).tokenIdleExpiry(Duration.ZERO)
                    .build();
            resources.push(unseeded);
            String run = Long.toHexString(System.nanoTime()); // fresh counters for the unseeded provider
            LeaseOptions lease = LeaseOptions.ofTtl(Duration.ofSeconds(30));
            AtomicLong seededGrants = new AtomicLong();
            AtomicLong unseededGrants = new AtomicLong();
            List<BenchRunner.Row> rows = runner.latency(List.of(
                    new BenchRunner.Contender("RedisLockProvider (1 node)", (w, i) ->
                            one.tryAcquire("single-" + run, lease).orElseThrow().release()),
                    new BenchRunner.Contender("RedlockProvider (5 nodes)", (w, i) -> {
                        redlock.tryAcquire("redlock-" + run, lease).orElseThrow().release();
                        seededGrants.incrementAndGet();
                    }),
                    new BenchRunner.Contender("RedlockProvider (5 nodes), token seeding off: counters in step, no write-back",
                            (w, i) -> {
                                unseeded.tryAcquire("unseeded-" + run, lease).orElseThrow().release();
                                unseededGrants.incrementAndGet();
                            })));
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("injectedReplyLagMicros", lag.toNanos() / 1000.0);
            settings.put("roundTripP50Micros", BenchRunner.round(pingP50Micros(single)));
            settings.put("tokenWriteBacksPerGrant", BenchRunner.round((double) redlock.tokenWriteBacks()
                    / Math.max(1, seededGrants.get())));
            settings.put("tokenWriteBacksPerGrantUnseeded", BenchRunner.round((double) unseeded.tokenWriteBacks()
                    / Math.max(1, unseededGrants.get())));
            // one thread: throughput is the inverse of the mean latency
            settings.put("redlockMeanLatencyOverSingle", BenchSession.spread(
                    rows.get(1).ratios().stream().mapToDouble(ratio -> 1 / ratio).toArray()));
            String title = lag.isZero()
                    ? "Redlock (5 nodes) vs single instance: acquire + release, servers reached directly (loopback)"
                    : "Redlock (5 nodes) vs single instance: acquire + release, each node behind a proxy that holds"
                            + " every reply " + lag.toNanos() / 1000 + " us (+" + lag.toNanos() / 1e6 + " ms per round trip)";
            return new Table(title, settings, rows);
        } finally {
            closeAll(resources);
        }
    }

    /** The URI to reach {@code server} by: directly, or through a proxy lagging its replies. */
    private static String reach(RedisTestServer server, Duration lag, Deque<AutoCloseable> resources) {
        if (lag.isZero()) {
            return server.uri();
        }
        LaggingProxy proxy = LaggingProxy.start(server.host(), server.port());
        resources.push(proxy);
        proxy.lagReplies(lag);
        return proxy.redisUri();
    }

    /** The median round trip of a {@code PING} to {@code uri}, what one request to a node costs at least. */
    private static double pingP50Micros(String uri) {
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            long[] samples = new long[PINGS];
            for (int i = 0; i < PINGS; i++) {
                long start = System.nanoTime();
                commands.ping();
                samples[i] = System.nanoTime() - start;
            }
            Arrays.sort(samples);
            return BenchRunner.percentile(samples, 0.5) / 1e3;
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static void closeAll(Deque<AutoCloseable> resources) {
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception ignored) {
                // keep closing
            }
        }
    }
}
