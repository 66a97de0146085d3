package dev.fencing.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What Spring Integration expects of a {@code LockRegistry} — as its {@code RedisLockRegistry} and
 * {@code JdbcLockRegistry} behave and are tested — run against a {@link FencedLockRegistry} over a
 * provider. Every registry gets its own provider, so two registries are two clients of the server.
 */
abstract class FencedLockRegistryContract {

    /** A new client of the server under test; the contract closes it. */
    protected abstract LockProvider newProvider();

    /** A TTL after which the server has surely ended a lease that was not renewed. */
    protected Duration shortTtl() {
        return Duration.ofMillis(500);
    }

    private final List<LockProvider> providers = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicLong clockNanos = new AtomicLong();
    private final String key = "si-" + UUID.randomUUID();

    @AfterEach
    void closeProviders() {
        assertThat(FencedLockRegistry.currentLease()).as("a test left a lock held by its thread").isEmpty();
        threads.shutdownNow();
        providers.forEach(LockProvider::close);
    }

    private FencedLockRegistry registry() {
        LockProvider provider = newProvider();
        providers.add(provider);
        return FencedLockRegistry.builder(provider)
                .ttl(Duration.ofSeconds(10))
                .clock(clockNanos::get)
                .build();
    }

    private <T> T onAnotherThread(java.util.concurrent.Callable<T> call) throws Exception {
        return threads.submit(call).get(30, TimeUnit.SECONDS);
    }

    @Test
    void lockGivesATokenAndUnlockReleasesTheLease() throws Exception {
        FencedLockRegistry registry = registry();
        FencedLock lock = registry.obtain(key);
        lock.lock();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.token().resource()).isEqualTo(key);
        assertThat(FencedLockRegistry.currentToken()).isEqualTo(lock.token());
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.lease()).isEmpty();
        assertThatThrownBy(lock::token).isInstanceOf(IllegalStateException.class).hasMessageContaining("not held");
        assertThatThrownBy(FencedLockRegistry::currentToken).isInstanceOf(IllegalStateException.class);
        FencedLock again = registry().obtain(key);
        assertThat(again.tryLock()).as("released on the server").isTrue();
        again.unlock();
    }

    @Test
    void obtainGivesOneLockPerKeyNamedByItsToString() {
        FencedLockRegistry registry = registry();
        assertThat(registry.obtain(key)).isSameAs(registry.obtain(key));
        assertThat(registry.obtain(42).name()).isEqualTo("42");
        assertThat(registry.obtain(UUID.fromString("00000000-0000-0000-0000-000000000007")).name())
                .isEqualTo("00000000-0000-0000-0000-000000000007");
        assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> registry.obtain("x".repeat(257))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 256");
        assertThatThrownBy(() -> registry.obtain("a\nb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control");
    }

    @Test
    void reentrantHoldsAreCountedAndTheLastUnlockReleases() throws Exception {
        FencedLockRegistry registry = registry();
        FencedLock other = registry().obtain(key);
        FencedLock lock = registry.obtain(key);
        lock.lock();
        FencingToken token = lock.token();
        assertThat(lock.tryLock()).isTrue();
        lock.lockInterruptibly();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.token()).as("one lease for every hold").isEqualTo(token);
        lock.unlock();
        lock.unlock();
        lock.unlock();
        assertThat(other.tryLock()).as("still held after three of four unlocks").isFalse();
        lock.unlock();
        assertThat(other.tryLock()).isTrue();
        assertThat(other.token().isNewerThan(token)).isTrue();
        other.unlock();
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrows() throws Exception {
        FencedLock lock = registry().obtain(key);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class).hasMessageContaining("not held");
        lock.lock();
        ExecutionException wrongThread = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> onAnotherThread(() -> {
                    lock.unlock();
                    return null;
                }));
        assertThat(wrongThread.getCause())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("another thread holds it");
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.lease().orElseThrow().isValid()).isTrue();
        lock.unlock();
    }

    @Test
    void anotherThreadOfTheSameRegistryWaitsForTheHolder() throws Exception {
        FencedLock lock = registry().obtain(key);
        lock.lock();
        assertThat(onAnotherThread(() -> lock.tryLock())).isFalse();
        assertThat(onAnotherThread(() -> lock.tryLock(200, TimeUnit.MILLISECONDS))).isFalse();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<FencingToken> second = threads.submit(() -> {
            waiting.countDown();
            lock.lock();
            try {
                return lock.token();
            } finally {
                lock.unlock();
            }
        });
        waiting.await();
        FencingToken first = lock.token();
        lock.unlock();
        assertThat(second.get(30, TimeUnit.SECONDS).isNewerThan(first)).isTrue();
    }

    @Test
    void tryLockWithATimeoutWaitsForAnotherRegistrysHolder() throws Exception {
        FencedLock holder = registry().obtain(key);
        FencedLock waiter = registry().obtain(key);
        holder.lock();
        long start = System.nanoTime();
        assertThat(waiter.tryLock(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(waiter.isLocked()).as("a failed tryLock keeps no hold").isFalse();

        Future<FencingToken> waited = threads.submit(() -> {
            assertThat(waiter.tryLock(30, TimeUnit.SECONDS)).isTrue();
            try {
                return waiter.token();
            } finally {
                waiter.unlock();
            }
        });
        FencingToken first = holder.token();
        holder.unlock();
        assertThat(waited.get(30, TimeUnit.SECONDS).isNewerThan(first)).isTrue();
    }

    @Test
    void lockInterruptiblyAnswersAnInterrupt() throws Exception {
        FencedLock holder = registry().obtain(key);
        FencedLock waiter = registry().obtain(key);
        holder.lock();
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            started.countDown();
            try {
                waiter.lockInterruptibly();
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        thread.start();
        started.await();
        thread.interrupt();
        thread.join(30_000);
        assertThat(interrupted).isTrue();
        assertThat(waiter.isLocked()).isFalse();
        holder.unlock();
        assertThat(waiter.tryLock()).as("the interrupted wait left nothing behind").isTrue();
        waiter.unlock();
    }

    @Test
    void twoRegistriesNeverHoldTogetherAndTokensIncreaseAcrossHolders() throws Exception {
        List<FencedLockRegistry> registries = List.of(registry(), registry());
        List<FencingToken> tokens = new ArrayList<>();
        AtomicBoolean inside = new AtomicBoolean();
        AtomicBoolean overlapped = new AtomicBoolean();
        int perThread = 25;
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            FencedLockRegistry registry = registries.get(i % 2);
            workers.add(threads.submit(() -> {
                for (int n = 0; n < perThread; n++) {
                    registry.executeLocked(key, () -> {
                        if (!inside.compareAndSet(false, true)) {
                            overlapped.set(true);
                        }
                        tokens.add(FencedLockRegistry.currentToken()); // guarded by the lock itself
                        inside.set(false);
                    });
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(120, TimeUnit.SECONDS);
        }
        assertThat(overlapped).isFalse();
        assertThat(tokens).hasSize(4 * perThread);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i).isNewerThan(tokens.get(i - 1))).as("token %d after %d", i, i - 1).isTrue();
        }
    }

    @Test
    void aLostLeaseMakesUnlockThrowAndItsWritesAreRefused() throws Exception {
        FencedStore store = InMemoryFencedStore.create();
        FencedLock zombie = registry().obtain(key);
        FencedLock next = registry().obtain(key);
        zombie.lock(shortTtl()); // a TTL of its own: not renewed
        FencingToken old = zombie.token();
        store.write(old, "leader-of", "zombie");
        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(next::tryLock);
        store.write(next.token(), "leader-of", "next");

        assertThatThrownBy(() -> store.write(zombie.token(), "leader-of", "zombie again"))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(zombie::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("was lost before its unlock");
        assertThat(zombie.isLocked()).as("unlocked in this process anyway").isFalse();
        assertThat(next.lease().orElseThrow().isValid()).isTrue();
        next.unlock();
    }

    @Test
    void aNestedLockAfterALossEndsTheSectionInsteadOfSwitchingTokens() throws Exception {
        FencedLock lock = registry().obtain(key);
        assertThat(lock.tryLock(Duration.ZERO, shortTtl())).isTrue();
        FencingToken lost = lock.token();
        Lease lease = lock.lease().orElseThrow();
        await().atMost(Duration.ofSeconds(30)).until(() -> !lease.isValid());

        // the section may have read under the lost lease: a new token must not carry it on
        assertThatThrownBy(lock::lock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("its critical section has ended");
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("was lost while this thread held it");

        assertThat(lock.tryLock()).as("a new section takes a new lease").isTrue();
        assertThat(lock.token().isNewerThan(lost)).isTrue();
        lock.unlock();
        FencedLock again = registry().obtain(key);
        assertThat(again.tryLock()).as("the new lease was released").isTrue();
        again.unlock();
    }

    @Test
    void onlyTheHoldingThreadGetsTheToken() throws Exception {
        FencedLock lock = registry().obtain(key);
        lock.lock();
        FencingToken token = lock.token();
        assertThatThrownBy(() -> onAnotherThread(lock::token)).hasRootCauseInstanceOf(IllegalStateException.class)
                .rootCause().hasMessageContaining("another thread holds it");
        assertThat(onAnotherThread(lock::lease)).isEmpty();
        assertThat(lock.token()).isEqualTo(token);
        lock.unlock();
    }

    @Test
    void aNestedLockThatFindsTheLockTakenEndsTheLostHolds() throws Exception {
        FencedLock zombie = registry().obtain(key);
        FencedLock next = registry().obtain(key);
        zombie.lock(shortTtl());
        zombie.lock(shortTtl());
        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(next::tryLock);
        assertThat(zombie.tryLock()).isFalse();
        assertThat(zombie.isLocked()).as("the lost holds were ended").isFalse();
        assertThat(zombie.lease()).isEmpty();
        assertThatThrownBy(zombie::unlock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("which a nested lock of this thread found");
        assertThatThrownBy(zombie::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(zombie::unlock).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not held");
        FencingToken held = next.token();
        next.unlock();
        assertThat(zombie.tryLock()).as("the zombie's thread can lock again").isTrue();
        assertThat(zombie.token().isNewerThan(held)).isTrue();
        zombie.unlock();
    }

    @Test
    void aLeaseTakenWithTheRegistrysTtlIsRenewed() throws Exception {
        LockProvider provider = newProvider();
        providers.add(provider);
        FencedLock lock = FencedLockRegistry.builder(provider).ttl(shortTtl()).build().obtain(key);
        FencedLock other = registry().obtain(key);
        lock.lock();
        await().pollInSameThread()
                .during(shortTtl().multipliedBy(4))
                .atMost(Duration.ofSeconds(60))
                .until(() -> !other.tryLock()); // once taken, other's nested tryLock stays true: the wait fails
        lock.unlock(); // would throw had the lease lapsed
    }

    @Test
    void renewLockNeedsTheHoldingThread() throws Exception {
        FencedLockRegistry registry = registry();
        FencedLock lock = registry.obtain(key);
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class);
        lock.lock(shortTtl());
        registry.renewLock(key, Duration.ofSeconds(10));
        FencedLock other = registry().obtain(key);
        assertThat(other.tryLock(shortTtl().multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS))
                .as("renewed past its own TTL")
                .isFalse();
        lock.unlock();
    }

    @Test
    void expireUnusedOlderThanForgetsOnlyIdleUnlockedLocks() {
        FencedLockRegistry registry = registry();
        FencedLock held = registry.obtain(key + "-held");
        FencedLock idle = registry.obtain(key + "-idle");
        held.lock();
        clockNanos.addAndGet(TimeUnit.SECONDS.toNanos(2));
        FencedLock recent = registry.obtain(key + "-recent");
        registry.expireUnusedOlderThan(1_000);
        assertThat(registry.obtain(key + "-held")).isSameAs(held);
        assertThat(registry.obtain(key + "-recent")).isSameAs(recent);
        assertThat(registry.obtain(key + "-idle")).isNotSameAs(idle);
        held.unlock();
    }

    @Test
    void conditionsAreNotSupported() {
        Lock lock = registry().obtain(key);
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }
}
