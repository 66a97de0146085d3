package dev.fencing.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs contenders side by side in one process: warm-up rounds, then measured rounds in which every
 * contender takes its turn (interleaved, so drift of the machine hits all alike), each round
 * starting one contender later (rotated, so no contender always follows the same one — on a
 * shared server the one before leaves work behind, such as dead row versions to prune). Reports the
 * median and p99 latency, the throughput, and the ratio of throughputs to the first contender,
 * the baseline.
 */
final class BenchRunner {

    /** One operation of a contender; {@code worker} tells threads apart. */
    @FunctionalInterface
    interface Op {
        void run(int worker, long iteration) throws Exception;
    }

    record Contender(String name, Op op) {}

    /** One contender's result. */
    record Row(String contender, long operations, double p50Micros, double p99Micros, double opsPerSecond, double ratio) {
        Map<String, Object> toMap() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("contender", contender);
            map.put("operations", operations);
            if (!Double.isNaN(p50Micros)) { // throughput rows time no single operation
                map.put("p50Micros", round(p50Micros));
                map.put("p99Micros", round(p99Micros));
            }
            map.put("opsPerSecond", Math.round(opsPerSecond));
            map.put("ratioToBaseline", round(ratio));
            return map;
        }
    }

    private final int warmupRounds;
    private final int rounds;
    private final int opsPerRound;

    BenchRunner(int warmupRounds, int rounds, int opsPerRound) {
        this.warmupRounds = warmupRounds;
        this.rounds = rounds;
        this.opsPerRound = opsPerRound;
    }

    /** Single-threaded latency and throughput; the first contender is the baseline. */
    List<Row> latency(List<Contender> contenders) throws Exception {
        int n = contenders.size();
        long[][] samples = new long[n][rounds * opsPerRound];
        long[] elapsed = new long[n];
        long iteration = 0;
        for (int round = 0; round < warmupRounds + rounds; round++) {
            boolean measured = round >= warmupRounds;
            for (int turn = 0; turn < n; turn++) {
                int c = (turn + round) % n;
                Op op = contenders.get(c).op();
                long start = System.nanoTime();
                for (int i = 0; i < opsPerRound; i++) {
                    long t0 = System.nanoTime();
                    op.run(0, iteration++);
                    if (measured) {
                        samples[c][(round - warmupRounds) * opsPerRound + i] = System.nanoTime() - t0;
                    }
                }
                if (measured) {
                    elapsed[c] += System.nanoTime() - start;
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        double baseline = (double) rounds * opsPerRound / elapsed[0];
        for (int c = 0; c < n; c++) {
            long[] sorted = samples[c].clone();
            Arrays.sort(sorted);
            double throughput = (double) rounds * opsPerRound / elapsed[c];
            rows.add(new Row(contenders.get(c).name(), sorted.length, percentile(sorted, 0.50) / 1e3,
                    percentile(sorted, 0.99) / 1e3, throughput * 1e9, throughput / baseline));
        }
        return rows;
    }

    /** Throughput with {@code threads} threads per contender, each thread on its own worker index. */
    List<Row> throughput(List<Contender> contenders, int threads) throws Exception {
        int n = contenders.size();
        long[] ops = new long[n];
        long[] elapsed = new long[n];
        AtomicLong iteration = new AtomicLong();
        for (int round = 0; round < warmupRounds + rounds; round++) {
            for (int turn = 0; turn < n; turn++) {
                int c = (turn + round) % n;
                Op op = contenders.get(c).op();
                CountDownLatch done = new CountDownLatch(threads);
                Exception[] failure = new Exception[1];
                long start = System.nanoTime();
                for (int t = 0; t < threads; t++) {
                    int worker = t;
                    Thread thread = new Thread(() -> {
                        try {
                            for (int i = 0; i < opsPerRound; i++) {
                                op.run(worker, iteration.incrementAndGet());
                            }
                        } catch (Exception e) {
                            failure[0] = e;
                        } finally {
                            done.countDown();
                        }
                    }, "bench-" + worker);
                    thread.start();
                }
                done.await();
                if (failure[0] != null) {
                    throw failure[0];
                }
                if (round >= warmupRounds) {
                    ops[c] += (long) threads * opsPerRound;
                    elapsed[c] += System.nanoTime() - start;
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        double baseline = (double) ops[0] / elapsed[0];
        for (int c = 0; c < n; c++) {
            double throughput = (double) ops[c] / elapsed[c];
            rows.add(new Row(contenders.get(c).name(), ops[c], Double.NaN, Double.NaN, throughput * 1e9,
                    throughput / baseline));
        }
        return rows;
    }

    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))];
    }

    static double round(double value) {
        return Double.isNaN(value) ? Double.NaN : Math.round(value * 100) / 100.0;
    }
}
