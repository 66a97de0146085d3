package dev.fencing.testkit.history;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StorageBasedFencedStore;
import dev.fencing.core.spi.WriteOutcome;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Stores for the checker's own tests: a correct one on the core's {@link StorageBasedFencedStore},
 * whose clients share one memory as processes share a server, and one that ignores tokens. The
 * testkit's references (InMemoryFencedStore, BrokenFencedStore) depend on this module, so its
 * tests cannot use them.
 */
final class TestStores {

    private TestStores() {}

    /** A correct store with {@code policy}: one more client of {@code memory}. */
    static FencedStore over(Memory memory, Policy policy) {
        return new StorageBasedFencedStore(memory, policy, FencingListener.NONE, 100);
    }

    /** A server's items: each conditional write is atomic under one monitor. */
    static final class Memory implements StorageAccessor<Long> {

        private final Map<String, Snapshot<Long>> items = new HashMap<>();
        private long versions;

        @Override
        public synchronized Optional<Snapshot<Long>> load(String key) {
            return Optional.ofNullable(items.get(key));
        }

        @Override
        public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
            return writeIf(key, value, token, policy, false, null);
        }

        @Override
        public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, String value,
                FencingToken token, Policy policy) {
            return writeIf(key, value, token, policy, true, expected);
        }

        private synchronized WriteOutcome writeIf(String key, @Nullable String value, FencingToken token,
                Policy policy, boolean checkVersion, @Nullable Snapshot<Long> expected) {
            Snapshot<Long> current = items.get(key);
            if (current != null && current.fencedByAnotherLockThan(token)) {
                return WriteOutcome.foreign(Objects.requireNonNull(current.resource()));
            }
            if (current != null && !policy.accepts(token.value(), current.token())) {
                return WriteOutcome.stale(current.token());
            }
            if (checkVersion && !Objects.equals(current == null ? null : current.version(),
                    expected == null ? null : expected.version())) {
                return WriteOutcome.conflict();
            }
            items.put(key, new Snapshot<>(value, token.value(), token.resource(), ++versions));
            return WriteOutcome.written();
        }
    }

    /** A key-value map with a token column nobody checks: every write lands. */
    static FencedStore ignoringTokens() {
        ConcurrentHashMap<String, StoredValue> items = new ConcurrentHashMap<>();
        return new FencedStore() {
            @Override
            public void write(FencingToken token, String key, String value) {
                items.put(key, new StoredValue(key, value, token.value()));
            }

            @Override
            public Optional<StoredValue> read(String key) {
                return Optional.ofNullable(items.get(key));
            }

            @Override
            public StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change) {
                StoredValue value = new StoredValue(key, change.apply(read(key).map(StoredValue::value)), token.value());
                items.put(key, value);
                return value;
            }

            @Override
            public void delete(FencingToken token, String key) {
                items.remove(key);
            }

            @Override
            public OptionalLong highWaterMark(String key) {
                StoredValue value = items.get(key);
                return value == null ? OptionalLong.empty() : OptionalLong.of(value.token());
            }

            @Override
            public Policy policy() {
                return Policy.MONOTONIC;
            }
        };
    }
}
