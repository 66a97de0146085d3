package dev.fencing.bench;

import dev.fencing.testkit.servers.RedisTestServer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of the benchmarks: its settings, the comparisons chosen, what it started (closed at the
 * end, last first), and the results in the order they were measured.
 */
final class BenchSession implements AutoCloseable {

    final boolean quick;
    final int repeats;
    private final List<Integer> only; // null: every comparison
    final Deque<AutoCloseable> resources = new ArrayDeque<>();
    final List<Map<String, Object>> results = new ArrayList<>();

    BenchSession(boolean quick, int repeats, List<Integer> only) {
        this.quick = quick;
        this.repeats = repeats;
        this.only = only;
    }

    boolean selected(int comparison) {
        return only == null || only.contains(comparison);
    }

    RedisTestServer closeLater(RedisTestServer server) {
        resources.push(server::stop);
        return server;
    }

    /** Adds a comparison's result: its number, title, repeats, settings, then its rows. */
    void add(int comparison, String title, List<BenchRunner.Row> rows, Map<String, Object> settings) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("comparison", comparison);
        result.put("title", title);
        result.put("repeats", repeats);
        result.putAll(settings);
        result.put("rows", rows.stream().map(BenchRunner.Row::toMap).toList());
        results.add(result);
    }

    /** {@code row}'s throughput over {@code baseline}'s, repeat by repeat (both measured in the same turns). */
    static double[] ratiosTo(BenchRunner.Row row, BenchRunner.Row baseline) {
        double[] ratios = new double[row.ratios().size()];
        for (int r = 0; r < ratios.length; r++) {
            ratios[r] = row.ratios().get(r) / baseline.ratios().get(r);
        }
        return ratios;
    }

    /** The median of {@code values} with their minimum and maximum, rounded to two decimals. */
    static Map<String, Object> spread(double[] values) {
        Map<String, Object> spread = new LinkedHashMap<>();
        spread.put("median", BenchRunner.round(BenchRunner.median(values)));
        spread.put("min", BenchRunner.round(Arrays.stream(values).min().orElseThrow()));
        spread.put("max", BenchRunner.round(Arrays.stream(values).max().orElseThrow()));
        return spread;
    }

    /** The report: the machine, the mode, the servers, and every result. */
    Map<String, Object> report() {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("machine", Map.of(
                "cores", Runtime.getRuntime().availableProcessors(),
                "os", System.getProperty("os.name") + " " + System.getProperty("os.version"),
                "java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                "maxHeapMb", Runtime.getRuntime().maxMemory() / (1024 * 1024)));
        report.put("mode", quick ? "quick (harness check, not for quoting)" : "full");
        report.put("repeats", repeats);
        report.put("servers", "all on this machine unless comparisons 6, 9 and 10 say otherwise: redis-server 6.2"
                + " (embedded-redis), PostgreSQL 17 (zonky), dynalite 4.0, S3Mock 5.2, etcd (Debian's etcd-server),"
                + " ZooKeeper 3.9 (curator-test, in this JVM)");
        report.put("results", results);
        return report;
    }

    /** Closes what the run started, last first; a failure to close one does not stop the others. */
    @Override
    public void close() {
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception ignored) {
                // keep closing
            }
        }
    }
}
