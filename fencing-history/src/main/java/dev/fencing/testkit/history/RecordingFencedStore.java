package dev.fencing.testkit.history;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.history.Operation.Kind;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** A store that records every call in a {@link HistoryRecorder}, then behaves exactly as the one it wraps. */
final class RecordingFencedStore implements FencedStore {

    private final HistoryRecorder recorder;
    private final int process;
    private final FencedStore store;
    private final boolean updatesIncrement;
    private final @Nullable Integer writer;

    /** {@code writer} null: each call's writer is its thread's number; otherwise every call's. */
    RecordingFencedStore(HistoryRecorder recorder, int process, FencedStore store, boolean updatesIncrement,
            @Nullable Integer writer) {
        this.recorder = recorder;
        this.process = process;
        this.store = store;
        this.writer = writer;
        this.updatesIncrement = updatesIncrement;
    }

    @Override
    public void write(FencingToken token, String key, String value) {
        recorder.write(process, writer(), store, token, key, value);
        rethrow();
    }

    @Override
    public Optional<StoredValue> read(String key) {
        Operation op = recorder.read(process, writer(), store, key);
        rethrow();
        return op.observed() == null ? Optional.empty() : Optional.of(new StoredValue(key, op.observed(),
                op.observedToken()));
    }

    @Override
    public StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change) {
        Operation op = recorder.update(process, writer(), store, token, key,
                updatesIncrement ? Kind.INCREMENT : Kind.UPDATE, change);
        rethrow();
        // rethrow() returned, so the update was accepted and op holds the value the store returned
        return new StoredValue(key, Objects.requireNonNull(op.value(), "an accepted update records its value"),
                op.observedToken());
    }

    @Override
    public void delete(FencingToken token, String key) {
        recorder.delete(process, writer(), store, token, key);
        rethrow();
    }

    @Override
    public OptionalLong highWaterMark(String key) {
        Operation op = recorder.mark(process, writer(), store, key);
        rethrow();
        return op.observedToken() == 0 ? OptionalLong.empty() : OptionalLong.of(op.observedToken());
    }

    @Override
    public Policy policy() {
        return store.policy();
    }

    private void rethrow() {
        RuntimeException e = recorder.takeThrown();
        if (e != null) {
            throw e;
        }
    }

    private int writer() {
        return writer != null ? writer : recorder.writerOf(Thread.currentThread());
    }
}
