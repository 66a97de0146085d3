package dev.fencing.testkit.history;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a randomized workload of lock holders and zombies against several instances of one store
 * and records it as a {@link History} for {@link HistoryChecker}.
 *
 * <p>Each writer thread holds a token from one counter shared by all (the lock), now and then
 * takes a newer one, and keeps writing with the old one meanwhile — the zombie — and sometimes
 * with a token a little older still. It picks a store instance per operation (most often its
 * own), so writes of one token reach the store through different clients and caches. On a few
 * keys it writes, deletes and updates, often with identical or empty values; on one counter key
 * it only increments through {@code update}. Reads of values and marks are mixed in, and every
 * instance reads every key at the end.
 *
 * <p>The seed fixes each writer's choices; the interleaving is up to the threads, so a failing
 * seed usually, not always, fails again. A run stops after its operations or its time limit,
 * whichever comes first.
 *
 * <pre>{@code
 * History history = HistoryRun.builder().keyPrefix("orders-check").seed(42).build()
 *         .run(List.of(storeA, storeB, storeC));
 * HistoryChecker.check(history).assertPassed();
 * }</pre>
 */
public final class HistoryRun {

    /** The resource of every token of a run: one lock fences all its keys. */
    public static final String LOCK = "history";

    private final String keyPrefix;
    private final int writers;
    private final int keys;
    private final int operationsPerWriter;
    private final Duration timeLimit;
    private final long seed;

    private HistoryRun(Builder builder) {
        this.keyPrefix = builder.keyPrefix;
        this.writers = builder.writers;
        this.keys = builder.keys;
        this.operationsPerWriter = builder.operationsPerWriter;
        this.timeLimit = builder.timeLimit;
        this.seed = builder.seed;
    }

    /** A builder with the defaults: 4 writers, 3 keys and a counter, 150 operations each, 20 s at most. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs the workload against {@code processes} — instances of one store on one backend, each
     * with its own clients and caches as separate processes would have — and returns its history.
     * The keys are {@code <keyPrefix>-k0} … and {@code <keyPrefix>-counter}; they should be new.
     *
     * @throws IllegalArgumentException if {@code processes} is empty or their policies differ
     */
    public History run(List<? extends FencedStore> processes) {
        if (processes == null || processes.isEmpty()) {
            throw new IllegalArgumentException("a history run needs at least one store instance, got none");
        }
        Policy policy = processes.get(0).policy();
        for (FencedStore process : processes) {
            if (process.policy() != policy) {
                throw new IllegalArgumentException("every store instance must apply one policy, got " + policy
                        + " and " + process.policy());
            }
        }
        List<String> valueKeys = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            valueKeys.add(keyPrefix + "-k" + k);
        }
        String counterKey = keyPrefix + "-counter";
        long start = System.nanoTime();
        long deadline = start + timeLimit.toNanos();
        AtomicLong lock = new AtomicLong();
        CountDownLatch ready = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        HistoryRecorder recorder = new HistoryRecorder(start);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            Writer writer = new Writer(w, new SplittableRandom(seed + 0x9E3779B97F4A7C15L * (w + 1)), processes,
                    valueKeys, counterKey, lock, recorder);
            Thread thread = new Thread(() -> {
                try {
                    ready.await();
                    for (int i = 0; i < operationsPerWriter && System.nanoTime() < deadline; i++) {
                        writer.step();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "history-writer-" + w);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        ready.countDown();
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the history's writers ran", e);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a history writer failed (seed " + seed + ")", failure.get());
        }
        List<String> allKeys = new ArrayList<>(valueKeys);
        allKeys.add(counterKey);
        for (int p = 0; p < processes.size(); p++) {
            for (String key : allKeys) {
                recorder.read(p, -1, processes.get(p), key);
                recorder.mark(p, -1, processes.get(p), key);
            }
        }
        return recorder.history(policy, seed);
    }

    /** One writer thread's choices. */
    private static final class Writer {
        private final int id;
        private final SplittableRandom random;
        private final List<? extends FencedStore> processes;
        private final List<String> valueKeys;
        private final String counterKey;
        private final AtomicLong lock;
        private final HistoryRecorder recorder;
        private long held;
        private int written;

        Writer(int id, SplittableRandom random, List<? extends FencedStore> processes, List<String> valueKeys,
                String counterKey, AtomicLong lock, HistoryRecorder recorder) {
            this.id = id;
            this.random = random;
            this.processes = processes;
            this.valueKeys = valueKeys;
            this.counterKey = counterKey;
            this.lock = lock;
            this.recorder = recorder;
            this.held = lock.incrementAndGet();
        }

        void step() {
            if (random.nextInt(100) < 15) {
                held = lock.incrementAndGet();
            }
            long token = random.nextInt(100) < 10 ? Math.max(1, held - 1 - random.nextInt(3)) : held;
            int own = id % processes.size();
            int process = random.nextInt(100) < 70 ? own : random.nextInt(processes.size());
            FencedStore store = processes.get(process);
            if (random.nextInt(100) < 20) {
                int choice = random.nextInt(100);
                if (choice < 70) {
                    recorder.increment(process, id, store, fence(token), counterKey);
                } else if (choice < 90) {
                    recorder.read(process, id, store, counterKey);
                } else {
                    recorder.mark(process, id, store, counterKey);
                }
                return;
            }
            String key = valueKeys.get(random.nextInt(valueKeys.size()));
            int choice = random.nextInt(100);
            if (choice < 35) {
                recorder.write(process, id, store, fence(token), key, nextValue());
            } else if (choice < 50) {
                recorder.delete(process, id, store, fence(token), key);
            } else if (choice < 65) {
                recorder.update(process, id, store, fence(token), key, nextValue());
            } else if (choice < 85) {
                recorder.read(process, id, store, key);
            } else {
                recorder.mark(process, id, store, key);
            }
        }

        /** A token of the run's one lock, which every key of the run is fenced by. */
        private static FencingToken fence(long token) {
            return FencingToken.of(LOCK, token);
        }

        /** Identical values often (equal is not same), empty ones often, unique ones otherwise. */
        private String nextValue() {
            int choice = random.nextInt(100);
            return choice < 40 ? "same" : choice < 60 ? "" : "w" + id + "-" + written++;
        }
    }

    /** Configures a {@link HistoryRun}; every setting is optional. */
    public static final class Builder {
        private String keyPrefix = "history";
        private int writers = 4;
        private int keys = 3;
        private int operationsPerWriter = 150;
        private Duration timeLimit = Duration.ofSeconds(20);
        private long seed = new SplittableRandom().nextLong();

        private Builder() {}

        /** The prefix of the run's keys; default {@code history}. Use a new one per run. */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || keyPrefix.isBlank() || keyPrefix.length() > 200) {
                throw new IllegalArgumentException("keyPrefix must be 1 to 200 characters, not blank, got "
                        + (keyPrefix == null ? "null" : "'" + keyPrefix + "'"));
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Writer threads, 1 to 64; default 4. */
        public Builder writers(int writers) {
            this.writers = between("writers", writers, 1, 64);
            return this;
        }

        /** Keys written, deleted and updated, besides the counter, 1 to 100; default 3. Fewer keys, more races. */
        public Builder keys(int keys) {
            this.keys = between("keys", keys, 1, 100);
            return this;
        }

        /** Operations per writer, 1 to 10,000,000; default 150. */
        public Builder operationsPerWriter(int operationsPerWriter) {
            this.operationsPerWriter = between("operationsPerWriter", operationsPerWriter, 1, 10_000_000);
            return this;
        }

        /** The longest the writers run, 1 ms to 24 h; default 20 s. */
        public Builder timeLimit(Duration timeLimit) {
            if (timeLimit == null || timeLimit.compareTo(Duration.ofMillis(1)) < 0
                    || timeLimit.compareTo(Duration.ofHours(24)) > 0) {
                throw new IllegalArgumentException("timeLimit must be between 1 ms and 24 h, got " + timeLimit);
            }
            this.timeLimit = timeLimit;
            return this;
        }

        /** The seed of the writers' choices; default random. It is in the history and every report. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** The run. */
        public HistoryRun build() {
            return new HistoryRun(this);
        }

        private static int between(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + value);
            }
            return value;
        }
    }
}
