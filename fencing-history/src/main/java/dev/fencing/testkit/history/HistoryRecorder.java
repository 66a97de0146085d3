package dev.fencing.testkit.history;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.history.Operation.Kind;
import dev.fencing.testkit.history.Operation.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Calls a {@link FencedStore} and records each call as an {@link Operation}: invocation and
 * completion time on one clock, and the outcome — a {@code StaleTokenException} as
 * {@link Outcome#STALE} with the mark it named, a {@code ConcurrentUpdateException} as
 * {@link Outcome#CONFLICT}, any other exception as {@link Outcome#UNKNOWN} (the write may have
 * happened). Exceptions are recorded, not thrown: the caller reads the outcome from the returned
 * operation. Thread-safe.
 */
public final class HistoryRecorder {

    private final long start;
    private final ConcurrentLinkedQueue<Operation> operations = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<RuntimeException> thrown = new ThreadLocal<>();
    private final Map<Thread, Integer> writers = new ConcurrentHashMap<>();
    private final AtomicInteger nextWriter = new AtomicInteger();

    /** A recorder whose clock starts now. */
    public HistoryRecorder() {
        this(System.nanoTime());
    }

    HistoryRecorder(long startNanos) {
        this.start = startNanos;
    }

    /** Where this recorder's clock starts: a {@link System#nanoTime()} reading; operations' times count from it. */
    public long startNanos() {
        return start;
    }

    /** The history recorded so far, ordered by invocation. */
    public History history(Policy policy, long seed) {
        List<Operation> sorted = new ArrayList<>(operations);
        sorted.sort(Comparator.comparingLong(Operation::invokedNanos));
        return new History(policy, seed, sorted);
    }

    /** {@code store.write(token, key, value)}, recorded. */
    public Operation write(int process, int writer, FencedStore store, FencingToken token, String key, String value) {
        long invoked = now();
        try {
            store.write(token, key, value);
            return add(process, writer, key, Kind.WRITE, token.value(), value, Outcome.OK, null, 0, invoked, null);
        } catch (RuntimeException e) {
            return failed(process, writer, key, Kind.WRITE, token.value(), value, invoked, e);
        }
    }

    /** {@code store.update(token, key, any -> value)}, recorded as {@link Kind#UPDATE}. */
    public Operation update(int process, int writer, FencedStore store, FencingToken token, String key, String value) {
        return update(process, writer, store, token, key, Kind.UPDATE, current -> value);
    }

    /** {@code store.update} adding one to a decimal counter (absent is 0), recorded as {@link Kind#INCREMENT}. */
    public Operation increment(int process, int writer, FencedStore store, FencingToken token, String key) {
        return update(process, writer, store, token, key, Kind.INCREMENT,
                current -> Long.toString(current.map(Long::parseLong).orElse(0L) + 1));
    }

    Operation update(int process, int writer, FencedStore store, FencingToken token, String key, Kind kind,
            Function<Optional<String>, String> change) {
        long invoked = now();
        // A write whose reply was lost may have landed with the value the change produced last
        // (earlier attempts ended in a definite conflict), so an unclear update is recorded with it.
        AtomicReference<String> produced = new AtomicReference<>();
        try {
            StoredValue result = store.update(token, key, current -> {
                String value = change.apply(current);
                produced.set(value);
                return value;
            });
            return add(process, writer, key, kind, token.value(), result.value(), Outcome.OK, null, result.token(),
                    invoked, null);
        } catch (RuntimeException e) {
            return failed(process, writer, key, kind, token.value(), produced.get(), invoked, e);
        }
    }

    /** {@code store.delete(token, key)}, recorded. */
    public Operation delete(int process, int writer, FencedStore store, FencingToken token, String key) {
        long invoked = now();
        try {
            store.delete(token, key);
            return add(process, writer, key, Kind.DELETE, token.value(), null, Outcome.OK, null, 0, invoked, null);
        } catch (RuntimeException e) {
            return failed(process, writer, key, Kind.DELETE, token.value(), null, invoked, e);
        }
    }

    /** {@code store.read(key)}, recorded. */
    public Operation read(int process, int writer, FencedStore store, String key) {
        long invoked = now();
        try {
            Optional<StoredValue> value = store.read(key);
            return add(process, writer, key, Kind.READ, 0, null, Outcome.OK, value.map(StoredValue::value).orElse(null),
                    value.map(StoredValue::token).orElse(0L), invoked, null);
        } catch (RuntimeException e) {
            return failed(process, writer, key, Kind.READ, 0, null, invoked, e);
        }
    }

    /** {@code store.highWaterMark(key)}, recorded. */
    public Operation mark(int process, int writer, FencedStore store, String key) {
        long invoked = now();
        try {
            OptionalLong mark = store.highWaterMark(key);
            return add(process, writer, key, Kind.MARK, 0, null, Outcome.OK, null, mark.orElse(0), invoked, null);
        } catch (RuntimeException e) {
            return failed(process, writer, key, Kind.MARK, 0, null, invoked, e);
        }
    }

    /**
     * {@code store} as seen through this recorder: every call is recorded (the writer is the
     * calling thread, numbered in order of first call) and then returns or throws exactly as
     * {@code store} did. Its {@code update} is recorded as {@link Kind#INCREMENT} when
     * {@code updatesIncrement} — only when every change passed to it adds one to a decimal counter.
     */
    public FencedStore recording(int process, FencedStore store, boolean updatesIncrement) {
        return new RecordingFencedStore(this, process, store, updatesIncrement, null);
    }

    /**
     * {@code store} as seen through this recorder for the final reads after a run: every call is
     * recorded as writer {@code -1} (the final reads' writer, whatever thread makes it), then returns
     * or throws exactly as {@code store} does.
     */
    public FencedStore recordingFinalReads(int process, FencedStore store) {
        return new RecordingFencedStore(this, process, store, false, -1);
    }

    /**
     * The writer number of {@code thread}, given in order of first call (asking first gives the
     * number then, so a caller can label its own events with the number its calls will carry).
     */
    public int writerOf(Thread thread) {
        return writers.computeIfAbsent(thread, t -> nextWriter.getAndIncrement());
    }

    /** The exception the calling thread's last recorded call threw, cleared; null if it returned. */
    @Nullable
    RuntimeException takeThrown() {
        RuntimeException e = thrown.get();
        thrown.remove();
        return e;
    }

    private Operation failed(int process, int writer, String key, Kind kind, long token, @Nullable String value,
            long invoked,
            RuntimeException e) {
        if (e instanceof IllegalArgumentException) {
            throw e; // a bad call is the caller's bug, not an outcome of the store
        }
        thrown.set(e);
        if (e instanceof StaleTokenException stale) {
            return add(process, writer, key, kind, token, null, Outcome.STALE, null, stale.highWaterMark(), invoked,
                    null);
        }
        if (e instanceof ConcurrentUpdateException) {
            return add(process, writer, key, kind, token, null, Outcome.CONFLICT, null, 0, invoked, null);
        }
        return add(process, writer, key, kind, token, value, Outcome.UNKNOWN, null, 0, invoked,
                e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    private Operation add(int process, int writer, String key, Kind kind, long token, @Nullable String value,
            Outcome outcome, @Nullable String observed, long observedToken, long invoked, @Nullable String error) {
        Operation op = new Operation(process, writer, key, kind, token, value, outcome, observed, observedToken,
                invoked, now(), error);
        operations.add(op);
        return op;
    }

    private long now() {
        return System.nanoTime() - start;
    }
}
