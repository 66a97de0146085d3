package dev.fencing.bench;

import dev.fencing.cli.Json;
import dev.fencing.cli.backends.ConnectionOptions;
import dev.fencing.testkit.servers.RedisTestServer;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The comparisons of {@code fencing bench}, numbered 1 to {@value #COMPARISONS}: each provider and
 * store against the best alternative and the physical floor, interleaved, after warm-up, on
 * servers started here — except that {@code --dynamodb-endpoint} and {@code --s3-endpoint} point
 * comparison 6, {@code --etcd-endpoints} comparison 9, {@code --zookeeper-connect} comparison 10 and
 * {@code --gcs-endpoint} comparison 13 at servers already running. Not thread-safe: one run per instance.
 */
public final class Benchmarks {

    /** The comparisons, numbered 1 to this. */
    public static final int COMPARISONS = 13;

    /** The most times a comparison's measured rounds may be repeated. */
    public static final int MAX_REPEATS = BenchRunner.MAX_REPEATS;

    private final boolean quick;
    private final int repeats;
    private final List<Integer> only;
    private final ConnectionOptions connections;

    /**
     * @param quick small counts: checks the harness, not for quoting
     * @param repeats how many times each comparison's measured rounds run, 1 to {@link #MAX_REPEATS}
     * @param only the comparisons to run, or null for all
     * @param connections the servers already running, for comparisons 6, 9 and 10
     */
    public Benchmarks(boolean quick, int repeats, List<Integer> only, ConnectionOptions connections) {
        this.quick = quick;
        this.repeats = repeats;
        this.only = only;
        this.connections = connections;
    }

    /**
     * Runs the chosen comparisons and closes every server and client it started, also on failure.
     *
     * @return the report: the machine, the mode, the servers, and the results
     * @throws Exception what a comparison threw; the run stops there
     */
    public Map<String, Object> run() throws Exception {
        // single-threaded comparisons: many short turns (see BenchRunner); 16 threads: a turn each
        // starts 16 threads, so fewer, longer ones
        int warmup = quick ? 1 : 10;
        int rounds = quick ? 2 : 40;
        BenchRunner runner = new BenchRunner(warmup, rounds, quick ? 50 : 225, repeats, !quick);
        BenchRunner threaded = new BenchRunner(quick ? 1 : 3, quick ? 2 : 6, quick ? 25 : 500, repeats, !quick);
        BenchRunner sql = new BenchRunner(warmup, rounds, quick ? 25 : 150, repeats, !quick);
        BenchRunner slow = new BenchRunner(warmup, rounds, quick ? 10 : 20, repeats, !quick);
        try (BenchSession session = new BenchSession(quick, repeats, only)) {
            RedisComparisons redisComparisons = new RedisComparisons(session);
            RedisTestServer redis = session.selected(1) || session.selected(2) || session.selected(3)
                    ? session.closeLater(RedisTestServer.launch()) : null;
            if (session.selected(1) || session.selected(2)) {
                redisComparisons.redisComparisons(redis, runner, threaded);
            }
            if (session.selected(3)) {
                redisComparisons.contended(redis, quick ? Duration.ofSeconds(1) : Duration.ofSeconds(10));
            }
            if (session.selected(4) || session.selected(5)) {
                SqlComparisons sqlComparisons = new SqlComparisons(session);
                sqlComparisons.sqlComparisons(sql, false);
                sqlComparisons.sqlComparisons(sql, true);
            }
            if (session.selected(6)) {
                new AwsComparisons(session, connections).awsComparisons(slow);
            }
            if (session.selected(7)) {
                // Redlock, directly and with a round trip injected per node
                for (RedlockBench.Table table : new RedlockBench(slow).run()) {
                    session.add(7, table.title(), table.rows(), table.settings());
                }
            }
            if (session.selected(8)) {
                redisComparisons.leftoverKeys(quick ? 200 : 2000);
            }
            ConsensusBench consensus = new ConsensusBench(slow, connections, session.resources::push);
            if (session.selected(9)) {
                ConsensusBench.Result etcd = consensus.etcd();
                session.add(9, "etcd lock vs jetcd's Lock service: acquire + release, one thread, uncontended",
                        etcd.rows(), Map.of("server", etcd.server()));
                CycleAccounting.addTo(session.results.get(session.results.size() - 1), etcd.accounts());
            }
            if (session.selected(10)) {
                ConsensusBench.Result zooKeeper = consensus.zooKeeper();
                session.add(10, "ZooKeeper lock vs Curator's InterProcessMutex: acquire + release, one thread,"
                        + " uncontended", zooKeeper.rows(), Map.of("server", zooKeeper.server()));
                CycleAccounting.addTo(session.results.get(session.results.size() - 1), zooKeeper.accounts());
            }
            if (session.selected(11)) {
                new PropagationComparisons(session).run(runner);
            }
            if (session.selected(12)) {
                new DynamoDbLockComparisons(session, connections).run(slow);
            }
            if (session.selected(13)) {
                new GcsComparisons(session, connections).run(slow);
            }
            return session.report();
        }
    }

    /** Prints {@code report} as one JSON document, or as text: a heading per comparison, a line per row. */
    @SuppressWarnings("unchecked")
    public static void print(PrintWriter out, Map<String, Object> report, boolean json) {
        if (json) {
            Json.print(out, report);
        } else {
            BenchReport.printText(out, report, (List<Map<String, Object>>) report.get("results"));
        }
        out.flush();
    }
}
