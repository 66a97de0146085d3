package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The store algorithm over an accessor in memory, whose answers a test can bend. */
class StorageBasedFencedStoreTest {

    private static final FencingToken T5 = FencingToken.of("lock", 5);
    private static final FencingToken T7 = FencingToken.of("lock", 7);

    /** A correct accessor in memory; {@code staleMark} and {@code conflicts} bend its answers. */
    static final class MemoryAccessor implements StorageAccessor<Integer> {
        final Map<String, Snapshot<Integer>> items = new HashMap<>();
        /** The mark a refused write reports; -1: the store's request does not say it. */
        long staleMark = Long.MIN_VALUE;
        /** How many of the next conditional writes answer CONFLICT. */
        int conflicts;
        final AtomicInteger loads = new AtomicInteger();
        final AtomicInteger conditionalWrites = new AtomicInteger();
        @Nullable WriteOutcome answerToWrite;

        void put(String key, @Nullable String value, long token, @Nullable String resource) {
            Snapshot<Integer> old = items.get(key);
            items.put(key, new Snapshot<>(value, token, resource, old == null ? 1 : old.version() + 1));
        }

        @Override
        public Optional<Snapshot<Integer>> load(String key) {
            loads.incrementAndGet();
            return Optional.ofNullable(items.get(key));
        }

        @Override
        public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
            if (answerToWrite != null) {
                return answerToWrite;
            }
            return guarded(key, value, token, policy);
        }

        @Override
        public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Integer> expected, String value,
                FencingToken token, Policy policy) {
            conditionalWrites.incrementAndGet();
            if (conflicts > 0) {
                conflicts--;
                return WriteOutcome.conflict();
            }
            Snapshot<Integer> current = items.get(key);
            if (!java.util.Objects.equals(current, expected)) {
                return WriteOutcome.conflict();
            }
            return guarded(key, value, token, policy);
        }

        private WriteOutcome guarded(String key, @Nullable String value, FencingToken token, Policy policy) {
            Snapshot<Integer> current = items.get(key);
            if (current != null && current.fencedByAnotherLockThan(token)) {
                return WriteOutcome.foreign(java.util.Objects.requireNonNull(current.resource()));
            }
            if (current != null && !policy.accepts(token.value(), current.token())) {
                return WriteOutcome.stale(staleMark == Long.MIN_VALUE ? current.token() : staleMark);
            }
            put(key, value, token.value(), token.resource());
            return WriteOutcome.written();
        }
    }

    /** What the store told its listener, in order. */
    static final class Recorder implements FencingListener {
        final List<String> heard = new ArrayList<>();
        final List<StaleTokenException> rejections = new ArrayList<>();

        @Override
        public void onStaleWriteRejected(StaleTokenException rejection) {
            rejections.add(rejection);
            heard.add("stale " + rejection.key());
        }

        @Override
        public void onWriteAccepted(FencingToken token, String key) {
            heard.add("accepted " + key + " " + token.value());
        }

        @Override
        public void onWriteFailed(String key, FencingException failure) {
            heard.add("failed " + key + " " + failure.getClass().getSimpleName());
        }
    }

    private final MemoryAccessor accessor = new MemoryAccessor();
    private final Recorder listener = new Recorder();

    private StorageBasedFencedStore store(Policy policy, int attempts) {
        return new StorageBasedFencedStore(accessor, policy, listener, attempts);
    }

    @Test
    void aRefusedWriteReportsTheMarkTheStoresReplyCarries() {
        accessor.put("k", "new", 7, "lock");
        StorageBasedFencedStore store = store(Policy.MONOTONIC, 3);

        assertThatThrownBy(() -> store.write(T5, "k", "old"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.highWaterMark()).isEqualTo(7);
                    assertThat(e.presented()).isEqualTo(T5);
                    assertThat(e.key()).isEqualTo("k");
                });
        assertThat(accessor.items.get("k").value()).isEqualTo("new");
        assertThat(listener.heard).containsExactly("stale k");
    }

    @Test
    void aRefusalWithoutMarkInTheReplyReadsTheMark() {
        accessor.put("k", "new", 9, "lock");
        accessor.answerToWrite = WriteOutcome.stale(-1);
        StorageBasedFencedStore store = store(Policy.MONOTONIC, 3);

        assertThatThrownBy(() -> store.write(T5, "k", "old"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(9));
        assertThatThrownBy(() -> store.delete(T5, "k"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(9));
        assertThat(listener.rejections).extracting(StaleTokenException::highWaterMark).containsExactly(9L, 9L);
    }

    @Test
    void aRefusalWithoutMarkOfAnItemGoneSinceReportsMarkZero() {
        accessor.answerToWrite = WriteOutcome.stale(-1);

        assertThatThrownBy(() -> store(Policy.MONOTONIC, 3).write(T5, "k", "old"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isZero());
    }

    @Test
    void aMarkOfZeroInTheReplyIsTakenAsItIs() {
        accessor.put("k", "v", 9, "lock");
        accessor.answerToWrite = WriteOutcome.stale(0);

        assertThatThrownBy(() -> store(Policy.MONOTONIC, 3).write(T5, "k", "old"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isZero());
    }

    @Test
    void anAcceptedWriteAndDeleteAreHeardAndDeleteLeavesTheMark() {
        StorageBasedFencedStore store = store(Policy.MONOTONIC, 3);

        store.write(T5, "k", "v");
        assertThat(store.read("k")).contains(new StoredValue("k", "v", 5));
        store.delete(T7, "k");

        assertThat(store.read("k")).isEmpty();
        assertThat(store.highWaterMark("k")).isEqualTo(OptionalLong.of(7));
        assertThat(store.highWaterMark("other")).isEmpty();
        assertThat(listener.heard).containsExactly("accepted k 5", "accepted k 7");
    }

    @Test
    void aWriteToAKeyOfAnotherLockIsForeignAndHeardAsAFailure() {
        accessor.put("k", "v", 1, "other-lock");
        StorageBasedFencedStore store = store(Policy.MONOTONIC, 3);

        assertThatThrownBy(() -> store.write(T5, "k", "x"))
                .isInstanceOfSatisfying(ForeignTokenException.class,
                        e -> assertThat(e.getMessage()).contains("other-lock"));
        assertThatThrownBy(() -> store.delete(T5, "k")).isInstanceOf(ForeignTokenException.class);
        assertThat(listener.heard).containsExactly("failed k ForeignTokenException", "failed k ForeignTokenException");
        assertThat(accessor.items.get("k").value()).isEqualTo("v");
    }

    @Test
    void anAnswerAWriteCannotHaveIsAnError() {
        accessor.answerToWrite = WriteOutcome.conflict();

        assertThatThrownBy(() -> store(Policy.MONOTONIC, 3).write(T5, "k", "v"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("MemoryAccessor");
        assertThat(listener.heard).isEmpty();
    }

    @ParameterizedTest(name = "{0} attempts")
    @ValueSource(ints = {1, 2, 5})
    void updateTriesExactlyItsAttempts(int attempts) {
        accessor.put("k", "1", 5, "lock");
        accessor.conflicts = attempts;
        StorageBasedFencedStore store = store(Policy.MONOTONIC, attempts);

        assertThatThrownBy(() -> store.update(T5, "k", v -> v.orElseThrow() + "1"))
                .isInstanceOf(ConcurrentUpdateException.class)
                .hasMessageContaining(String.valueOf(attempts));
        assertThat(accessor.conditionalWrites).hasValue(attempts);
        assertThat(accessor.items.get("k").value()).isEqualTo("1");
        assertThat(listener.heard).containsExactly("failed k ConcurrentUpdateException");
    }

    @Test
    void updateSucceedsOnItsLastAttemptFromAFreshLoad() {
        accessor.put("k", "1", 5, "lock");
        accessor.conflicts = 2;
        List<Optional<String>> seen = new ArrayList<>();

        StoredValue written = store(Policy.MONOTONIC, 3).update(T7, "k", v -> {
            seen.add(v);
            return v.orElseThrow() + "+";
        });

        assertThat(written).isEqualTo(new StoredValue("k", "1+", 7));
        assertThat(accessor.conditionalWrites).hasValue(3);
        assertThat(accessor.loads).hasValue(3);
        assertThat(seen).hasSize(3);
        assertThat(accessor.items.get("k").value()).isEqualTo("1+");
        assertThat(listener.heard).containsExactly("accepted k 7");
    }

    @Test
    void updateOfAnAbsentItemSeesNothingAndCreatesIt() {
        assertThat(store(Policy.STRICT, 1).update(T5, "k", v -> v.isPresent() ? "present" : "absent"))
                .isEqualTo(new StoredValue("k", "absent", 5));
        assertThat(accessor.items.get("k").token()).isEqualTo(5);
    }

    @Test
    void updateOfATombstoneSeesNoValue() {
        accessor.put("k", null, 3, "lock");

        assertThat(store(Policy.MONOTONIC, 1).update(T5, "k", v -> v.isPresent() ? "present" : "absent").value())
                .isEqualTo("absent");
    }

    @Test
    void updateWithAStaleTokenIsRefusedBeforeTheChangeRuns() {
        accessor.put("k", "v", 7, "lock");
        AtomicInteger changes = new AtomicInteger();

        assertThatThrownBy(() -> store(Policy.MONOTONIC, 3).update(T5, "k", v -> {
            changes.incrementAndGet();
            return "x";
        })).isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(7));
        assertThat(changes).hasValue(0);
        assertThat(accessor.conditionalWrites).hasValue(0);
        assertThat(listener.heard).containsExactly("stale k");
    }

    @Test
    void updateOfAKeyOfAnotherLockIsRefusedBeforeTheChangeRuns() {
        accessor.put("k", "v", 1, "other-lock");
        AtomicInteger changes = new AtomicInteger();

        assertThatThrownBy(() -> store(Policy.MONOTONIC, 3).update(T5, "k", v -> {
            changes.incrementAndGet();
            return "x";
        })).isInstanceOf(ForeignTokenException.class).hasMessageContaining("other-lock");
        assertThat(changes).hasValue(0);
        assertThat(listener.heard).containsExactly("failed k ForeignTokenException");
    }

    @Test
    void updateRefusedByTheStoreReportsTheStoresMark() {
        accessor.put("k", "v", 5, "lock");
        accessor.staleMark = 8;
        accessor.conflicts = 0;
        // another holder writes between the load and the write: the accessor refuses
        StorageBasedFencedStore store = new StorageBasedFencedStore(new StorageAccessor<Integer>() {
            @Override
            public Optional<Snapshot<Integer>> load(String key) {
                return accessor.load(key);
            }

            @Override
            public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
                return accessor.write(key, value, token, policy);
            }

            @Override
            public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Integer> expected, String value,
                    FencingToken token, Policy policy) {
                return WriteOutcome.stale(8);
            }
        }, Policy.MONOTONIC, listener, 3);

        assertThatThrownBy(() -> store.update(T5, "k", v -> "x"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(8));
        assertThat(listener.heard).containsExactly("stale k");
    }

    @Test
    void aChangeReturningNullIsRefused() {
        assertThatThrownBy(() -> store(Policy.MONOTONIC, 3).update(T5, "k", v -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("returned null");
        assertThat(accessor.items).isEmpty();
    }

    @Test
    void thePolicyDecidesWhetherTheSameTokenMayWriteAgain() {
        accessor.put("k", "v", 5, "lock");
        StorageBasedFencedStore monotonic = store(Policy.MONOTONIC, 3);
        StorageBasedFencedStore strict = store(Policy.STRICT, 3);

        assertThat(monotonic.update(T5, "k", v -> "again").value()).isEqualTo("again");
        assertThatThrownBy(() -> strict.update(T5, "k", v -> "again")).isInstanceOf(StaleTokenException.class);
        assertThat(strict.policy()).isEqualTo(Policy.STRICT);
        assertThat(monotonic.policy()).isEqualTo(Policy.MONOTONIC);
    }

    @ParameterizedTest(name = "{0} attempts")
    @ValueSource(ints = {0, 1001, -1})
    void attemptsOutsideOneToAThousandAreRefused(int attempts) {
        assertThatThrownBy(() -> store(Policy.MONOTONIC, attempts)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest(name = "{0} attempts")
    @ValueSource(ints = {1, 1000})
    void attemptsAtTheBoundsAreAllowed(int attempts) {
        accessor.conflicts = attempts - 1;
        assertThat(store(Policy.MONOTONIC, attempts).update(T5, "k", v -> "v").value()).isEqualTo("v");
    }

    @Test
    void theDefaultsAreMonotonicAndAHundredAttempts() {
        accessor.conflicts = 100;
        StorageBasedFencedStore store = StorageBasedFencedStore.of(accessor);

        assertThat(store.policy()).isEqualTo(Policy.MONOTONIC);
        assertThatThrownBy(() -> store.update(T5, "k", v -> "v")).isInstanceOf(ConcurrentUpdateException.class);
        assertThat(accessor.conditionalWrites).hasValue(100);
    }

    @Test
    void everyWriteChecksItsKeyAndTokenBeforeTouchingTheStore() {
        StorageBasedFencedStore store = store(Policy.MONOTONIC, 3);

        assertThatThrownBy(() -> store.write(T5, "", "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.update(T5, "", v -> "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.delete(T5, "")).isInstanceOf(IllegalArgumentException.class);
        assertThat(accessor.loads).hasValue(0);
        assertThat(accessor.items).isEmpty();
        assertThat(listener.heard).isEmpty();
    }
}
