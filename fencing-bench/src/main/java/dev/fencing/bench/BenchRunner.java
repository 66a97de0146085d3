package dev.fencing.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs contenders side by side in one process: warm-up rounds, then measured rounds in which every
 * contender takes a short turn (interleaved, so drift of the machine hits all alike). The order of
 * the turns changes from round to round after a Williams design, in which every contender follows
 * every other equally often: the one before leaves work behind (dead row versions to prune, another
 * connection's backend to switch away from), and merely rotating the first turn would keep each
 * contender behind the same one in all but one turn of a round. Short turns matter as much: on a
 * two-core VM a client thread and its server process round-trip about three times faster when the
 * scheduler keeps them on one core than across two, the placement holds for some tens of
 * milliseconds, and few long turns let one contender draw the slow placement more often than another.
 *
 * <p>The measured rounds are repeated {@code repeats} times after one warm-up; each repeat yields a
 * ratio of throughputs to the first contender, the baseline, and a row reports the median of those
 * ratios with their minimum and maximum, and the medians of the repeats' p50, p99 and throughput.
 * While the repeats of some contender disagree by more than {@value #SETTLED_SPREAD_PERCENT} %
 * ({@link #settled}), more run, up to three times the repeats asked for (at most
 * {@value #MAX_REPEATS}); a row says how many ran and whether its ratios settled.
 */
final class BenchRunner {

    /** The most repeats a run may ask for, and the most it runs to let the ratios settle. */
    static final int MAX_REPEATS = 20;

    /** How far apart, in percent of their median, the repeats' ratios may be for a row to count as settled. */
    static final int SETTLED_SPREAD_PERCENT = 10;

    /** One operation of a contender; {@code worker} tells threads apart. */
    @FunctionalInterface
    interface Op {
        void run(int worker, long iteration) throws Exception;
    }

    record Contender(String name, Op op) {}

    /** What one contender measured in one repeat. */
    private record Measured(double p50Micros, double p99Micros, double opsPerSecond, double ratio) {}

    /**
     * One contender's result over the repeats: medians, and the ratio's spread.
     *
     * @param operations the operations measured, over every repeat
     * @param ratios the ratio to the baseline in each repeat, in the order they ran
     */
    record Row(String contender, long operations, double p50Micros, double p99Micros, double opsPerSecond,
            double ratio, double ratioMin, double ratioMax, List<Double> ratios, boolean settled) {

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
            map.put("ratioMin", round(ratioMin));
            map.put("ratioMax", round(ratioMax));
            map.put("ratioPerRepeat", ratios.stream().map(BenchRunner::round).toList());
            map.put("repeatsRun", ratios.size());
            map.put("settled", settled);
            return map;
        }
    }

    private final int warmupRounds;
    private final int rounds;
    private final int opsPerRound;
    private final int repeats;
    private final boolean settle;

    /**
     * @param repeats how many times the measured rounds run, 1 to {@value #MAX_REPEATS}
     * @param settle whether more repeats run while the ratios have not settled (not for a harness check)
     * @throws IllegalArgumentException for another number of repeats
     */
    BenchRunner(int warmupRounds, int rounds, int opsPerRound, int repeats, boolean settle) {
        if (repeats < 1 || repeats > MAX_REPEATS) {
            throw new IllegalArgumentException("repeats must be between 1 and " + MAX_REPEATS + ", got " + repeats);
        }
        this.warmupRounds = warmupRounds;
        this.rounds = rounds;
        this.opsPerRound = opsPerRound;
        this.repeats = repeats;
        this.settle = settle;
    }

    /** How many times the measured rounds run. */
    int repeats() {
        return repeats;
    }

    /** Single-threaded latency and throughput; the first contender is the baseline. */
    List<Row> latency(List<Contender> contenders) throws Exception {
        AtomicLong iteration = new AtomicLong();
        latencyRounds(contenders, warmupRounds, iteration);
        List<List<Measured>> perRepeat = new ArrayList<>();
        while (moreRepeats(perRepeat, contenders.size())) {
            perRepeat.add(latencyRounds(contenders, rounds, iteration));
        }
        return rows(contenders, perRepeat, (long) rounds * opsPerRound * perRepeat.size());
    }

    private List<Measured> latencyRounds(List<Contender> contenders, int roundCount, AtomicLong iteration)
            throws Exception {
        int n = contenders.size();
        long[][] samples = new long[n][roundCount * opsPerRound];
        long[] elapsed = new long[n];
        for (int round = 0; round < roundCount; round++) {
            for (int c : order(n, round)) {
                Op op = contenders.get(c).op();
                long start = System.nanoTime();
                for (int i = 0; i < opsPerRound; i++) {
                    long t0 = System.nanoTime();
                    op.run(0, iteration.getAndIncrement());
                    samples[c][round * opsPerRound + i] = System.nanoTime() - t0;
                }
                elapsed[c] += System.nanoTime() - start;
            }
        }
        double baseline = (double) roundCount * opsPerRound / elapsed[0];
        List<Measured> measured = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            long[] sorted = samples[c];
            Arrays.sort(sorted);
            double throughput = (double) roundCount * opsPerRound / elapsed[c];
            measured.add(new Measured(percentile(sorted, 0.50) / 1e3, percentile(sorted, 0.99) / 1e3,
                    throughput * 1e9, throughput / baseline));
        }
        return measured;
    }

    /** Throughput with {@code threads} threads per contender, each thread on its own worker index. */
    List<Row> throughput(List<Contender> contenders, int threads) throws Exception {
        AtomicLong iteration = new AtomicLong();
        throughputRounds(contenders, threads, warmupRounds, iteration);
        List<List<Measured>> perRepeat = new ArrayList<>();
        while (moreRepeats(perRepeat, contenders.size())) {
            perRepeat.add(throughputRounds(contenders, threads, rounds, iteration));
        }
        return rows(contenders, perRepeat, (long) threads * rounds * opsPerRound * perRepeat.size());
    }

    private List<Measured> throughputRounds(List<Contender> contenders, int threads, int roundCount,
            AtomicLong iteration) throws Exception {
        int n = contenders.size();
        long[] elapsed = new long[n];
        for (int round = 0; round < roundCount; round++) {
            for (int c : order(n, round)) {
                elapsed[c] += timedRound(contenders.get(c).op(), threads, iteration);
            }
        }
        long ops = (long) threads * roundCount * opsPerRound;
        double baseline = (double) ops / elapsed[0];
        List<Measured> measured = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            double throughput = (double) ops / elapsed[c];
            measured.add(new Measured(Double.NaN, Double.NaN, throughput * 1e9, throughput / baseline));
        }
        return measured;
    }

    /** One contender's turn with {@code threads} threads: how long it took them all. */
    private long timedRound(Op op, int threads, AtomicLong iteration) throws Exception {
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
        return System.nanoTime() - start;
    }

    /**
     * The order of the contenders' turns in {@code round}: the rows of a Williams design — the
     * sequence 0, 1, n-1, 2, n-2, … shifted by the round, and for an odd count also reversed in
     * every other block of n rounds — so that in every n rounds (2n for an odd n) each contender
     * directly follows each other equally often (once; twice for an odd n).
     */
    static int[] order(int n, int round) {
        int[] base = new int[n];
        for (int k = 1, low = 1, high = n - 1; k < n; k++) {
            base[k] = k % 2 == 1 ? low++ : high--;
        }
        int row = round % (n % 2 == 0 ? n : 2 * n);
        boolean reversed = row >= n;
        int[] order = new int[n];
        for (int k = 0; k < n; k++) {
            order[k] = (base[reversed ? n - 1 - k : k] + row) % n;
        }
        return order;
    }

    /** Whether to run one more repeat: fewer than asked ran, or some ratio has not settled and the cap allows. */
    private boolean moreRepeats(List<List<Measured>> perRepeat, int contenders) {
        if (perRepeat.size() < repeats) {
            return true;
        }
        if (!settle || perRepeat.size() >= Math.min(MAX_REPEATS, 3 * repeats)) {
            return false;
        }
        for (int c = 1; c < contenders; c++) {
            int contender = c;
            if (!settled(perRepeat.stream().mapToDouble(measured -> measured.get(contender).ratio()).toArray())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code ratios}, one per repeat, agree: their range is at most
     * {@value #SETTLED_SPREAD_PERCENT} % of their median. From five repeats on, the lowest and the
     * highest are left out first (one outlier repeat — a build starting beside the run — does not
     * keep a row unsettled for ever, and more repeats can settle a row, which a full range, only
     * ever growing, could not).
     */
    static boolean settled(double[] ratios) {
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        double[] kept = sorted.length >= 5 ? Arrays.copyOfRange(sorted, 1, sorted.length - 1) : sorted;
        double median = median(kept);
        return kept[kept.length - 1] - kept[0] <= median * SETTLED_SPREAD_PERCENT / 100.0;
    }

    private static List<Row> rows(List<Contender> contenders, List<List<Measured>> perRepeat, long operations) {
        List<Row> rows = new ArrayList<>();
        for (int c = 0; c < contenders.size(); c++) {
            int contender = c;
            List<Measured> repeats = perRepeat.stream().map(measured -> measured.get(contender)).toList();
            double[] ratios = repeats.stream().mapToDouble(Measured::ratio).toArray();
            rows.add(new Row(contenders.get(c).name(), operations,
                    median(repeats.stream().mapToDouble(Measured::p50Micros).toArray()),
                    median(repeats.stream().mapToDouble(Measured::p99Micros).toArray()),
                    median(repeats.stream().mapToDouble(Measured::opsPerSecond).toArray()),
                    median(ratios), Arrays.stream(ratios).min().orElseThrow(), Arrays.stream(ratios).max().orElseThrow(),
                    Arrays.stream(ratios).boxed().toList(), settled(ratios)));
        }
        return rows;
    }

    /** The median: the middle value, or the mean of the two middle values of an even count. */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
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
