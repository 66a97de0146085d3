package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The section of {@link FencedStoreContract} on what the store compares: tokens as exact longs,
 * keys and lock names as exact strings, a key fenced by one lock only, and bad arguments refused
 * before anything is written.
 */
abstract class KeyAndLockCases extends LostReplyCases {

    /**
     * Why the store under test cannot bind a key to the lock whose tokens fence it, or {@code null}
     * (the default) if it does: then it must refuse a token of another lock with
     * {@link ForeignTokenException}. Only a store with no place for the lock's name overrides this
     * (the JDBC row guard); the lock-binding tests are then skipped with this reason printed.
     */
    protected @Nullable String whyKeysAreNotBoundToLocks() {
        return null;
    }

    private void requireLockBinding() {
        String why = whyKeysAreNotBoundToLocks();
        if (why != null) {
            Skip.because(getClass().getSimpleName() + " does not bind keys to locks: " + why);
        }
    }

    // ---- Numbers and spellings: the store compares what the SPI compares ----

    /** Tokens are longs: above 2^53 a comparison through doubles would confuse neighbours. */
    @Test
    void tokensAbove2To53AreComparedExactly() {
        long big = 1L << 53;
        String key = key("k");
        store.write(token(big + 1), key, "a");
        assertStale(() -> store.write(token(big), key, "older"), big + 1);
        store.write(token(big + 2), key, "b");
        assertThat(store.read(key)).contains(new StoredValue(key, "b", big + 2));

        FencedStore strict = createStore(Policy.STRICT);
        String strictKey = key("strict");
        strict.write(token(big + 1), strictKey, "a");
        assertStale(() -> strict.write(token(big + 1), strictKey, "equal"), big + 1);
        strict.write(token(big + 2), strictKey, "b");
        assertThat(strict.highWaterMark(strictKey)).hasValue(big + 2);

        String maxKey = key("max");
        store.write(token(Long.MAX_VALUE - 1), maxKey, "a");
        assertStale(() -> store.write(token(Long.MAX_VALUE - 2), maxKey, "older"), Long.MAX_VALUE - 1);
        store.delete(token(Long.MAX_VALUE), maxKey);
        assertThat(store.highWaterMark(maxKey)).hasValue(Long.MAX_VALUE);
    }

    /**
     * Keys are compared exactly, as Java strings: a store must not let the database's collation
     * (case, trailing spaces, accents) make two keys one item — a delete of one would otherwise
     * fence, or expose, the other.
     */
    @Test
    void keysThatDifferOnlyInCaseSpacesOrAccentsAreDifferentItems() {
        String base = key("Alice\u00e9");
        List<String> spellings = List.of(base, base.toLowerCase(Locale.ROOT),
                base.toUpperCase(Locale.ROOT), base + " ", base + "  ", " " + base,
                base.replace("\u00e9", "e\u0301"), base.replace("\u00e9", "e"));
        Map<String, Long> tokens = new HashMap<>();
        for (int i = 0; i < spellings.size(); i++) {
            tokens.put(spellings.get(i), 10L + i);
            store.write(token(10L + i), spellings.get(i), "value of [" + spellings.get(i) + "]");
        }
        store.delete(token(100), base);

        assertThat(store.read(base)).isEmpty();
        for (String other : spellings.subList(1, spellings.size())) {
            long token = Objects.requireNonNull(tokens.get(other), "every spelling was written with a token");
            assertThat(store.read(other)).as("[%s] after deleting [%s]", other, base)
                    .contains(new StoredValue(other, "value of [" + other + "]", token));
            store.write(token(token), other, "rewritten");
        }
        assertThat(store.highWaterMark(base)).hasValue(100);
    }

    /**
     * Keys shaped like a store's own syntax are ordinary keys: braces (a Redis Cluster hash tag ends
     * at the first {@code '}'}, so a key that starts with one has an empty tag), percent signs,
     * colons, a store's own suffixes, quotes and path segments. Each is written, updated, refused,
     * deleted and re-created only by a newer token like any other key, and no two share a mark.
     */
    @Test
    void keysShapedLikeAStoresOwnSyntaxAreOrdinaryKeys() {
        String id = prefix;
        List<String> keys = List.of("}" + id, "}}" + id + "{", "{}" + id, "{" + id + "}", id + "}", id + "{",
                "%7D" + id, "}" + id + "}:item", id + "}:item", id + ":item", id + "/../x", "'" + id + "\"\"",
                id + "%");
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            long base = 1000L * (i + 1);
            store.write(token(base), key, "value of [" + key + "]");
            assertThat(store.read(key)).as("[%s]", key).contains(new StoredValue(key, "value of [" + key + "]", base));
            assertStale(() -> store.write(token(base - 1), key, "zombie"), base);
            StoredValue updated = store.update(token(base + 1), key, v -> v.orElseThrow() + "+1");
            assertThat(updated).isEqualTo(new StoredValue(key, "value of [" + key + "]+1", base + 1));
        }
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            long base = 1000L * (i + 1);
            assertThat(store.read(key)).as("[%s] after every other key was written", key)
                    .contains(new StoredValue(key, "value of [" + key + "]+1", base + 1));
            store.delete(token(base + 2), key);
            assertThat(store.read(key)).as("[%s] after its delete", key).isEmpty();
            assertStale(() -> store.write(token(base + 1), key, "zombie re-create"), base + 2);
            assertThat(store.highWaterMark(key)).as("[%s]", key).hasValue(base + 2);
        }
    }

    // ---- A key is fenced by one lock: token values of different locks are not comparable ----

    @Test
    void aTokenOfAnotherLockIsRefusedByEveryWriteAndNothingChanges() {
        requireLockBinding();
        FencedStore other = createStore(Policy.MONOTONIC);
        String key = key("k");
        store.write(token(5), key, "mine");
        FencingToken foreign = FencingToken.of("another-lock", 1_000);

        assertForeign(() -> other.write(foreign, key, "theirs"), key, foreign);
        assertForeign(() -> other.update(foreign, key, v -> {
            throw new AssertionError("the change ran for a token of another lock");
        }), key, foreign);
        assertForeign(() -> other.delete(foreign, key), key, foreign);
        assertThat(other.read(key)).contains(new StoredValue(key, "mine", 5));
        assertThat(other.highWaterMark(key)).hasValue(5);
        store.write(token(6), key, "still mine");
    }

    @Test
    void aDeletedKeyStaysFencedByItsLock() {
        requireLockBinding();
        FencedStore other = createStore(Policy.MONOTONIC);
        String key = key("k");
        store.write(token(5), key, "v");
        store.delete(token(6), key);
        FencingToken foreign = FencingToken.of("another-lock", 1_000);

        assertForeign(() -> other.write(foreign, key, "back"), key, foreign);
        assertForeign(() -> other.update(foreign, key, v -> "back"), key, foreign);
        assertThat(other.read(key)).isEmpty();
        assertThat(other.highWaterMark(key)).hasValue(6);
        store.write(token(7), key, "back, by the lock's holder");
    }

    /**
     * Lock names are compared exactly: a collation that folds case, pads spaces or equates accents
     * must not make two locks one.
     */
    @Test
    void lockNamesThatDifferOnlyInCaseSpacesOrAccentsAreDifferentLocks() {
        requireLockBinding();
        FencedStore other = createStore(Policy.MONOTONIC);
        String key = key("k");
        String lock = "Ord\u00e9rs";
        store.write(FencingToken.of(lock, 5), key, "v");
        for (String spelling : List.of(lock.toLowerCase(Locale.ROOT), lock.toUpperCase(Locale.ROOT), lock + " ",
                " " + lock, lock.replace("\u00e9", "e\u0301"), lock.replace("\u00e9", "e"))) {
            FencingToken foreign = FencingToken.of(spelling, 1_000);
            assertForeign(() -> other.write(foreign, key, "[" + spelling + "]"), key, foreign);
        }
        assertThat(other.read(key)).contains(new StoredValue(key, "v", 5));
    }

    @Test
    void locksSharingAFenceNameOnPurposeFenceOneKeyTogether() {
        requireLockBinding();
        FencedStore other = createStore(Policy.MONOTONIC);
        String key = key("k");
        FencingToken first = FencingToken.of("lock-a", 5).forSharedFence("shared-fence");
        FencingToken second = FencingToken.of("lock-b", 6).forSharedFence("shared-fence");
        store.write(first, key, "a");
        other.write(second, key, "b");

        assertStale(() -> store.write(first, key, "zombie"), 6);
        assertForeign(() -> store.write(FencingToken.of("lock-a", 7), key, "unshared"), key,
                FencingToken.of("lock-a", 7));
        assertThat(store.read(key)).contains(new StoredValue(key, "b", 6));
    }

    /**
     * Two locks' holders race to write a fresh key from two store instances: the key ends bound to
     * exactly one of them. A store that checks the lock with a read before an unconditional write
     * accepts writes of both.
     */
    @Test
    void twoLocksRacingForANewKeyBindItToExactlyOne() throws Exception {
        requireLockBinding();
        FencedStore[] stores = {createStore(Policy.MONOTONIC), createStore(Policy.MONOTONIC)};
        String[] locks = {"racing-lock-a", "racing-lock-b"};
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 10; round++) {
                String key = key("race-" + round);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<List<Long>>> sides = new ArrayList<>();
                for (int side = 0; side < 2; side++) {
                    FencedStore writer = stores[side];
                    String lock = locks[side];
                    long base = 100L * (side + 1);
                    sides.add(pool.submit(() -> {
                        start.await();
                        List<Long> accepted = new ArrayList<>();
                        for (long t = base; t < base + 3; t++) {
                            try {
                                writer.write(FencingToken.of(lock, t), key, lock + "@" + t);
                                accepted.add(t);
                            } catch (ForeignTokenException e) {
                                // the other lock bound the key first
                            }
                        }
                        return accepted;
                    }));
                }
                start.countDown();
                List<Long> a = sides.get(0).get(30, TimeUnit.SECONDS);
                List<Long> b = sides.get(1).get(30, TimeUnit.SECONDS);
                assertThat(a.isEmpty() || b.isEmpty())
                        .as("round %d: writes accepted from both locks: %s %s and %s %s", round, locks[0], a,
                                locks[1], b)
                        .isTrue();
                List<Long> winner = a.isEmpty() ? b : a;
                assertThat(winner).hasSize(3);
                assertThat(store.read(key)).map(StoredValue::token).contains(winner.get(2));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A name cut in the middle of a character ("order-😀" cut at 7 chars) has no UTF-8 form: each
     * server would store other bytes for it, so two locks could share a name and a lock could stop
     * matching itself (found by the adversarial review on S3, JDBC and Redis). Such lock names and
     * keys are refused before any write.
     */
    @Test
    void namesCutInTheMiddleOfACharacterAreRefusedBeforeAnyWrite() {
        String cut = "order-\uD83D\uDE00".substring(0, 7);
        assertThatThrownBy(() -> FencingToken.of(cut, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate");
        String cutKey = key("k-") + cut;
        assertThatThrownBy(() -> store.write(token(5), cutKey, "v")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> store.update(token(5), cutKey, v -> "v")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.delete(token(5), cutKey)).isInstanceOf(IllegalArgumentException.class);
        String whole = key("k-") + "order-\uD83D\uDE00";
        store.write(token(5), whole, "a whole emoji is fine");
        assertThat(store.read(whole).map(StoredValue::value)).contains("a whole emoji is fine");
    }

    private static void assertForeign(Runnable write, String key, FencingToken presented) {
        assertThatThrownBy(write::run).isInstanceOfSatisfying(ForeignTokenException.class, e -> {
            assertThat(e.key()).isEqualTo(key);
            assertThat(e.presented()).isEqualTo(presented);
            assertThat(e.boundResource()).isNotEqualTo(presented.resource());
            assertThat(e.getMessage()).contains(presented.resource()).contains(e.boundResource());
        });
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  ", "new\nline"})
    void badKeysAreRefusedAndNothingIsWritten(String bad) {
        assertThatThrownBy(() -> store.write(token(1), bad, "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> store.read(bad)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.delete(token(1), bad)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.update(token(1), bad, v -> "v")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @SuppressWarnings("NullAway") // passes null where none is allowed, on purpose: the store must refuse it
    void badArgumentsAreRefusedAndNothingIsWritten() {
        String key = key("k");
        assertThatThrownBy(() -> store.write(token(1), "k".repeat(300), "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 256");
        assertThatThrownBy(() -> store.write(token(1), key, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("value");
        assertThatThrownBy(() -> store.write(null, key, "v"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token");
        assertThatThrownBy(() -> store.update(token(1), key, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.update(token(1), key, v -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("returned null");
        assertThat(store.read(key)).isEmpty();
        assertThat(store.highWaterMark(key)).isEmpty();
        assertThat(Optional.ofNullable(store.policy())).isPresent();
    }
}
