package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The section of {@link FencedStoreContract} on one store instance: the storage-side gate under
 * both policies, tombstones that keep the mark, the read-modify-write that loses nothing, and
 * concurrent holders (DESIGN.md invariants 2, 3, 4, 6, 7).
 */
abstract class SingleHolderCases extends StoreContractBase {

    @Test
    void aFirstWriteIsReadBackWithItsToken() {
        String key = key("k");
        assertThat(store.read(key)).isEmpty();
        assertThat(store.highWaterMark(key)).isEmpty();

        store.write(token(5), key, "v1");

        assertThat(store.read(key)).contains(new StoredValue(key, "v1", 5));
        assertThat(store.highWaterMark(key)).hasValue(5);
        assertThat(store.policy()).isEqualTo(Policy.MONOTONIC);
    }

    @Test
    void equalAndNewerTokensAreAcceptedUnderMonotonic() {
        String key = key("k");
        store.write(token(5), key, "v1");
        store.write(token(5), key, "v2");
        assertThat(store.read(key)).contains(new StoredValue(key, "v2", 5));
        store.write(token(9), key, "v3");
        assertThat(store.read(key)).contains(new StoredValue(key, "v3", 9));
    }

    @Test
    void strictRefusesAnEqualTokenAndAcceptsANewerOne() {
        FencedStore strict = createStore(Policy.STRICT);
        assertThat(strict.policy()).isEqualTo(Policy.STRICT);
        String key = key("k");
        strict.write(token(5), key, "v1");

        assertThatThrownBy(() -> strict.write(token(5), key, "v2"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.highWaterMark()).isEqualTo(5);
                    assertThat(e.policy()).isEqualTo(Policy.STRICT);
                })
                .hasMessageContaining("STRICT");
        assertThat(strict.read(key)).contains(new StoredValue(key, "v1", 5));

        strict.write(token(6), key, "v3");
        assertThat(strict.read(key)).contains(new StoredValue(key, "v3", 6));
    }

    @Test
    void anOlderTokenIsRefusedWithTheMarkAndTheValueIsUntouched() {
        String key = key("k");
        store.write(token(7), key, "newer");

        assertThatThrownBy(() -> store.write(token(6), key, "older"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.key()).isEqualTo(key);
                    assertThat(e.presented()).isEqualTo(token(6));
                    assertThat(e.highWaterMark()).isEqualTo(7);
                })
                .hasMessageContaining(key)
                .hasMessageContaining("presented 6")
                .hasMessageContaining("7");

        assertThat(store.read(key)).contains(new StoredValue(key, "newer", 7));
        assertThat(store.highWaterMark(key)).hasValue(7);
    }

    @Test
    void theZombieWriterIsRefusedAfterTheNewHolderWrote() {
        String key = key("account");
        FencingToken zombie = token(33);
        FencingToken current = token(34);
        store.write(zombie, key, "100"); // client 1 writes before its pause
        store.write(current, key, "150"); // client 2, after client 1's lease expired

        assertThatThrownBy(() -> store.write(zombie, key, "70")).isInstanceOf(StaleTokenException.class);
        assertThat(store.read(key)).contains(new StoredValue(key, "150", 34));
    }

    @Test
    void racingWritersLeaveTheNewerValueEveryTime() throws Exception {
        FencedStore other = createStore(Policy.MONOTONIC); // a second client, as another process has
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 25; round++) {
                String key = key("race-" + round);
                CountDownLatch start = new CountDownLatch(1);
                Future<?> older = pool.submit(() -> writeRefusingStale(store, start, key, "older", token(10)));
                Future<?> newer = pool.submit(() -> writeRefusingStale(other, start, key, "newer", token(11)));
                start.countDown();
                older.get(30, TimeUnit.SECONDS);
                newer.get(30, TimeUnit.SECONDS);
                assertThat(store.read(key)).as("round %d", round).contains(new StoredValue(key, "newer", 11));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Void writeRefusingStale(FencedStore writer, CountDownLatch start, String key, String value,
            FencingToken token) throws InterruptedException {
        start.await();
        try {
            writer.write(token, key, value);
        } catch (StaleTokenException expectedForTheOlder) {
            assertThat(token.value()).isEqualTo(10);
        }
        return null;
    }

    @Test
    void aDeleteKeepsTheMarkSoAZombieCannotRecreateTheItem() {
        String key = key("k");
        store.write(token(5), key, "v");
        store.delete(token(6), key);

        assertThat(store.read(key)).isEmpty();
        assertThat(store.highWaterMark(key)).hasValue(6);
        assertThatThrownBy(() -> store.write(token(5), key, "zombie"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(6));
        assertThatThrownBy(() -> store.update(token(5), key, v -> "zombie")).isInstanceOf(StaleTokenException.class);
        assertThat(store.read(key)).isEmpty();

        store.write(token(7), key, "back");
        assertThat(store.read(key)).contains(new StoredValue(key, "back", 7));
    }

    @Test
    void deletingAnAbsentKeyRecordsTheMark() {
        String key = key("k");
        store.delete(token(4), key);
        assertThat(store.read(key)).isEmpty();
        assertThat(store.highWaterMark(key)).hasValue(4);
        assertThatThrownBy(() -> store.write(token(3), key, "zombie")).isInstanceOf(StaleTokenException.class);
    }

    @Test
    void aStaleDeleteIsRefusedAndTheValueSurvives() {
        String key = key("k");
        store.write(token(7), key, "v");
        assertThatThrownBy(() -> store.delete(token(6), key)).isInstanceOf(StaleTokenException.class);
        assertThat(store.read(key)).contains(new StoredValue(key, "v", 7));
    }

    @Test
    void updateAppliesTheChangeToTheCurrentValue() {
        String key = key("counter");
        StoredValue first = store.update(token(1), key, v -> {
            assertThat(v).isEmpty();
            return "1";
        });
        assertThat(first).isEqualTo(new StoredValue(key, "1", 1));
        StoredValue second = store.update(token(2), key, v -> Integer.toString(Integer.parseInt(v.orElseThrow()) + 1));
        assertThat(second).isEqualTo(new StoredValue(key, "2", 2));
        assertThat(store.read(key)).contains(second);
    }

    @Test
    void updateWithAStaleTokenIsRefusedAndWritesNothing() {
        String key = key("k");
        store.write(token(8), key, "v");
        assertThatThrownBy(() -> store.update(token(7), key, v -> "stale"))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(8));
        assertThat(store.read(key)).contains(new StoredValue(key, "v", 8));
    }

    /**
     * DESIGN.md invariant 6: the zombie's write lands after the new holder read the item and before
     * its write. Whether the store refuses the zombie (it claimed the item first) or accepts it
     * (the mark had not risen yet), the new holder's increment must not be computed from the value
     * it read before the zombie's write.
     */
    @Test
    void updateLosesNothingWhenAZombieWritesBetweenTheReadAndTheWrite() {
        String key = key("counter");
        FencingToken zombie = token(5);
        FencingToken current = token(6);
        store.write(zombie, key, "0");
        AtomicBoolean zombieWrote = new AtomicBoolean();
        AtomicBoolean zombieAccepted = new AtomicBoolean();

        store.update(current, key, value -> {
            if (zombieWrote.compareAndSet(false, true)) {
                try {
                    store.write(zombie, key, Integer.toString(Integer.parseInt(value.orElseThrow()) + 1));
                    zombieAccepted.set(true);
                } catch (StaleTokenException refused) {
                    zombieAccepted.set(false);
                }
            }
            return Integer.toString(Integer.parseInt(value.orElseThrow()) + 1);
        });

        int acceptedIncrements = 1 + (zombieAccepted.get() ? 1 : 0);
        assertThat(store.read(key)).contains(new StoredValue(key, Integer.toString(acceptedIncrements), 6));
    }

    @Test
    void concurrentHoldersWithIncreasingTokensLoseNoAcceptedIncrement() throws Exception {
        String key = key("counter");
        int threads = 8;
        int rounds = 20;
        AtomicLong tokens = new AtomicLong();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        FencingToken token = token(tokens.incrementAndGet());
                        try {
                            store.update(token, key, v -> Integer.toString(v.map(Integer::parseInt).orElse(0) + 1));
                            accepted.incrementAndGet();
                        } catch (StaleTokenException e) {
                            assertThat(e.highWaterMark()).isGreaterThan(token.value());
                            refused.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(accepted.get() + refused.get()).isEqualTo(threads * rounds);
        assertThat(accepted.get()).isPositive();
        StoredValue last = store.read(key).orElseThrow();
        assertThat(Integer.parseInt(last.value())).as("stored count vs accepted increments").isEqualTo(accepted.get());
    }

    @Test
    void keysAreFencedIndependently() {
        store.write(token(9), key("a"), "a");
        store.write(token(2), key("b"), "b");
        assertThat(store.read(key("b"))).contains(new StoredValue(key("b"), "b", 2));
        assertThat(store.highWaterMark(key("a"))).hasValue(9);
    }
}
