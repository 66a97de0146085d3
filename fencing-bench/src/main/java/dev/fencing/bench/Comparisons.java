package dev.fencing.bench;

import dev.fencing.testkit.servers.RedisTestServer;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/** A group of comparisons measured in one {@link BenchSession}, adding their results to it. */
abstract class Comparisons {

    final boolean quick;
    final int repeats;
    final Deque<AutoCloseable> resources;
    final List<Map<String, Object>> results;
    private final BenchSession session;

    Comparisons(BenchSession session) {
        this.session = session;
        this.quick = session.quick;
        this.repeats = session.repeats;
        this.resources = session.resources;
        this.results = session.results;
    }

    final boolean selected(int comparison) {
        return session.selected(comparison);
    }

    final RedisTestServer closeLater(RedisTestServer server) {
        return session.closeLater(server);
    }

    final void add(int comparison, String title, List<BenchRunner.Row> rows, Map<String, Object> settings) {
        session.add(comparison, title, rows, settings);
    }

    static double[] ratiosTo(BenchRunner.Row row, BenchRunner.Row baseline) {
        return BenchSession.ratiosTo(row, baseline);
    }

    static Map<String, Object> spread(double[] values) {
        return BenchSession.spread(values);
    }
}
