package dev.fencing.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one operation of each contender costs besides time: the requests its server received
 * (counted by the server, so every contender is counted alike, whatever client it uses) and the
 * bytes this JVM allocated, on the caller's thread and on all threads together (a client's event
 * loop allocates too). Each contender runs {@link #CYCLES} operations alone after as many to warm
 * up; a counter's own reading is measured first and taken off.
 *
 * <p>The JVM-wide bytes count every live thread, so they include an in-process server's (the
 * ZooKeeper comparison's) and whatever else runs meanwhile; read them as a comparison between
 * the rows of one table, not as an absolute figure.
 */
final class CycleAccounting {

    /** Operations per contender, measured after as many warm-up operations. */
    static final int CYCLES = 200;

    /** A server's running count of the requests it received (or, for Redis, of the commands it ran). */
    @FunctionalInterface
    interface RequestCounter {
        long requests() throws Exception;

        /** The name of the count per operation in a row. */
        default String perOp() {
            return "requestsPerOp";
        }
    }

    /** One contender's cost per operation; {@code requests} is NaN without a counter. */
    record Account(String counted, double requests, long callerBytes, long jvmBytes) {

        void addTo(Map<String, Object> row) {
            if (!Double.isNaN(requests)) {
                row.put(counted, BenchRunner.round(requests));
            }
            row.put("callerBytesPerOp", callerBytes);
            row.put("jvmBytesPerOp", jvmBytes);
        }
    }

    private CycleAccounting() {}

    /** Accounts for each of {@code contenders}, in order; {@code counter} may be null. */
    static List<Account> of(List<BenchRunner.Contender> contenders, @Nullable RequestCounter counter) throws Exception {
        List<Account> accounts = new ArrayList<>();
        for (BenchRunner.Contender contender : contenders) {
            accounts.add(measure(contender.op(), counter, CYCLES));
        }
        return accounts;
    }

    /** Adds {@code accounts} to the rows of {@code result} (a {@link BenchSession} result), row by row. */
    @SuppressWarnings("unchecked")
    static void addTo(Map<String, Object> result, List<Account> accounts) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map<String, Object> given : (List<Map<String, Object>>) result.get("rows")) {
            Map<String, Object> row = new LinkedHashMap<>(given);
            if (rows.size() < accounts.size()) {
                accounts.get(rows.size()).addTo(row);
            }
            rows.add(row);
        }
        result.put("rows", rows);
    }

    static Account measure(BenchRunner.Op op, @Nullable RequestCounter counter, int cycles) throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < cycles; i++) {
            op.run(0, i);
        }
        long readingCost = 0;
        if (counter != null) {
            long first = counter.requests();
            readingCost = counter.requests() - first;
        }
        long requestsBefore = counter == null ? 0 : counter.requests();
        long callerBefore = threads.getCurrentThreadAllocatedBytes();
        long jvmBefore = allocatedByAllThreads(threads);
        for (int i = 0; i < cycles; i++) {
            op.run(0, cycles + i);
        }
        long callerAfter = threads.getCurrentThreadAllocatedBytes();
        long jvmAfter = allocatedByAllThreads(threads);
        double requests = counter == null ? Double.NaN
                : (double) (counter.requests() - requestsBefore - readingCost) / cycles;
        return new Account(counter == null ? "" : counter.perOp(), requests, (callerAfter - callerBefore) / cycles,
                (jvmAfter - jvmBefore) / cycles);
    }

    /** The bytes allocated so far by the threads alive now (a thread that ended is not counted). */
    static long allocatedByAllThreads(com.sun.management.ThreadMXBean threads) {
        long[] ids = threads.getAllThreadIds();
        return Arrays.stream(threads.getThreadAllocatedBytes(ids)).filter(bytes -> bytes > 0).sum();
    }
}
