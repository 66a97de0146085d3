package dev.fencing.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.InMemoryLockProvider;
import dev.fencing.testkit.InMemoryLockServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversarial tests of {@link FencedLockRegistry} / {@link FencedLock} over the testkit's in-memory
 * lock server: every registry is a client of its own (two registries = two processes).
 */
class AdversarialFencedLockTest {

    private static final Duration SHORT = Duration.ofMillis(300);

    private final InMemoryLockServer server = new InMemoryLockServer();
    private final List<LockProvider> providers = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicLong clockNanos = new AtomicLong();
    private final String key = "adv-" + UUID.randomUUID();

    @AfterEach
    void close() {
        threads.shutdownNow();
        providers.forEach(LockProvider::close);
    }

    private FencedLockRegistry registry() {
        LockProvider provider = InMemoryLockProvider.builder().server(server).build();
        providers.add(provider);
        return FencedLockRegistry.builder(provider).ttl(Duration.ofSeconds(10)).build();
    }

    /**
     * Guarantee 1/2 — a thread that still believes it holds the lock reads ANOTHER thread's token.
     *
     * <p>Attack: thread B holds the lock (its {@code lock(ttl)} returned, not yet unlocked); its lease
     * lapses and a rival registry takes the lock; B's nested {@code tryLock()} fails, which silently
     * "ends" B's outer hold (documented), but B's code is still inside its outer critical section.
     * The rival lets go, and thread A of B's own registry locks the same {@code FencedLock} instance.
     * B now calls {@code lock.token()} — {@code token()} answers "from any thread while held" — and
     * gets A's brand-new, valid token. B's late write is accepted by the fenced store (same token as
     * the current holder, not older), concurrently with A: two writers, one live token.
     */
    @Test
    void aThreadWhoseHoldsWereDroppedNeverGetsAnotherThreadsToken() throws Exception {
        FencedStore store = InMemoryFencedStore.create();
        FencedLock lock = registry().obtain(key);
        FencedLock rival = registry().obtain(key);

        lock.lock(SHORT); // thread B (this thread): outer hold, lease not renewed
        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(rival::tryLock);
        assertThat(lock.tryLock()).as("nested attempt while the rival holds it").isFalse();
        rival.unlock();

        CountDownLatch aHolds = new CountDownLatch(1);
        CountDownLatch aMayLeave = new CountDownLatch(1);
        Future<FencingToken> threadA = threads.submit(() -> {
            lock.lock();
            try {
                store.write(lock.token(), "ledger", "written by A");
                aHolds.countDown();
                aMayLeave.await();
                return lock.token();
            } finally {
                lock.unlock();
            }
        });
        assertThat(aHolds.await(30, TimeUnit.SECONDS)).isTrue();

        // B, still inside the critical section its lock(ttl) opened, writes with lock.token()
        AtomicReference<FencingToken> seenByB = new AtomicReference<>();
        Throwable refused = catchThrowable(() -> {
            seenByB.set(lock.token());
            store.write(seenByB.get(), "ledger", "written by B, which no longer holds the lock");
        });
        aMayLeave.countDown();
        FencingToken aToken = threadA.get(30, TimeUnit.SECONDS);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);

        assertThat(refused)
                .as("thread B's holds were ended; it must not get a token, yet it got %s (thread A's lease %s)"
                        + " and its write was accepted while A held the lock", seenByB.get(), aToken)
                .isNotNull();
    }

    /**
     * Guarantee 2/3 — an interrupt during a nested {@code lock()} after a loss ends the OUTER hold,
     * although the nested {@code lock()} then succeeds.
     *
     * <p>Attack: T holds the lock (outer {@code lock(ttl)}); the lease lapses and a rival registry
     * holds it, so T's nested {@code lock()} waits. T is interrupted while waiting ({@code lock()}
     * "does not answer interrupts"). The provider's wait throws {@code InterruptedException}; {@code
     * takeLease} treats it as "could not take it again" and drops T's outer hold; the loop then waits
     * again and gets a new lease. T's nested {@code lock()} returned normally, so T believes it holds
     * two holds; but its first (inner) {@code unlock()} releases the lease. T's outer section goes on
     * "holding" while another registry takes the lock: both believe they hold it.
     */
    @Test
    void aNestedLockAfterALossThrowsAtOnceEvenWithAnInterruptPending() throws Exception {
        FencedLock lock = registry().obtain(key);
        FencedLock rival = registry().obtain(key);
        FencedLock third = registry().obtain(key);
        AtomicReference<Throwable> nested = new AtomicReference<>();
        AtomicReference<Throwable> outerUnlock = new AtomicReference<>();
        CountDownLatch outerLocked = new CountDownLatch(1);
        CountDownLatch rivalHolds = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            lock.lock(SHORT);
            outerLocked.countDown();
            try {
                rivalHolds.await();
                Thread.currentThread().interrupt(); // an interrupt pending as the nested lock() starts
                lock.lock(); // nested, after the loss: must not wait, retake or hide the loss
                lock.unlock();
            } catch (InterruptedException | RuntimeException e) {
                nested.set(e);
            } finally {
                Thread.interrupted();
                try {
                    lock.unlock(); // the outer hold
                } catch (RuntimeException e) {
                    outerUnlock.set(e);
                }
            }
        });
        t.start();
        assertThat(outerLocked.await(30, TimeUnit.SECONDS)).isTrue();
        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(rival::tryLock);
        rivalHolds.countDown();
        t.join(30_000);

        assertThat(nested.get()).as("the nested lock() of a lost section").isInstanceOf(
                ConcurrentModificationException.class);
        assertThat(outerUnlock.get()).as("the outer unlock of a lost section").isInstanceOf(
                ConcurrentModificationException.class);
        assertThat(third.tryLock()).as("the rival still holds: T's thread took no lease in its lost section")
                .isFalse();
        rival.unlock();
    }

    /**
     * Guarantee 1 — {@code currentToken()} answers another key's token inside a reentrant hold.
     *
     * <p>Attack: a handler locked "A", then (nested handler / executeLocked) "B", then "A" again —
     * reentrant, e.g. a message routed back to the A handler on the same thread. The innermost lock
     * taken is A, but {@code HeldLocks} keeps each lock once, at the place of its first lock, so
     * {@code currentToken()} answers B's token. The A handler writes A's item with B's token; tokens
     * start at 1 per resource, so the two tokens even have the same value (equal is not same).
     */
    @Test
    void currentTokenInAReentrantHoldIsTheInnermostKeys() {
        FencedLockRegistry registry = registry();
        FencedLock a = registry.obtain(key + "-A");
        FencedLock b = registry.obtain(key + "-B");
        FencingToken current;
        a.lock();
        try {
            b.lock();
            try {
                a.lock(); // reentrant: the innermost section is A's again
                try {
                    current = FencedLockRegistry.currentToken();
                } finally {
                    a.unlock();
                }
            } finally {
                b.unlock();
            }
        } finally {
            a.unlock();
        }
        assertThat(current.resource())
                .as("currentToken() inside the innermost lock of %s answered %s", a.name(), current)
                .isEqualTo(a.name());
    }

    /**
     * Guarantee 4 — {@code expireUnusedOlderThan} between {@code obtain} and {@code lock} makes two
     * instances of one key in this process.
     *
     * <p>Attack: a thread obtains the lock (as {@code LockRequestHandlerAdvice}, {@code executeLocked}
     * and the leader initiator do) and is about to lock it when a housekeeping task expires unused
     * locks: the instance is not locked yet, so it is forgotten. The thread locks the forgotten
     * instance; every later {@code obtain(key)} returns another one. The same thread then does not
     * hold "its" key: a nested lock of the key (executeLocked inside the handler) is refused by its
     * own lease — {@code lock()} would wait for ever — {@code renewLock(key)} throws, and the docs'
     * leader pattern {@code registry.obtain(role).token()} throws "not held".
     */
    @Test
    void expiringBetweenObtainAndLockKeepsOneInstanceOfTheKey() throws Exception {
        LockProvider provider = InMemoryLockProvider.builder().server(server).build();
        providers.add(provider);
        FencedLockRegistry registry = FencedLockRegistry.builder(provider)
                .ttl(Duration.ofSeconds(10))
                .clock(clockNanos::get)
                .build();
        FencedLock obtained = registry.obtain(key);
        clockNanos.addAndGet(TimeUnit.SECONDS.toNanos(2)); // the thread was slow to get to lock()
        registry.expireUnusedOlderThan(1_000); // housekeeping on another thread
        obtained.lock();
        try {
            FencedLock again = registry.obtain(key);
            boolean nested = again.tryLock(200, TimeUnit.MILLISECONDS);
            if (nested) {
                again.unlock();
            }
            Throwable renew = catchThrowable(() -> registry.renewLock(key));
            assertThat(again)
                    .as("obtain(key) while this thread holds the key gave another instance (nested tryLock: %s,"
                            + " renewLock: %s)", nested, renew)
                    .isSameAs(obtained);
        } finally {
            obtained.unlock();
        }
    }

    /**
     * Guarantee 3 — a lost lease goes unreported at unlock when a nested lock replaced it.
     *
     * <p>Attack: the outer section's lease lapses (a pause), a rival takes the lock, writes, and lets
     * go; the holder's nested {@code tryLock} then takes a NEW lease. Part of the outer critical
     * section ran without the lock and another holder wrote in between, yet neither unlock throws
     * {@code ConcurrentModificationException}: the outer section is never told. (The docs describe
     * this for the leader initiator; it contradicts "a lost lease is reported at unlock".)
     */
    @Test
    void aLossIsReportedAtTheOuterUnlockNotHiddenByANestedRelock() throws Exception {
        FencedStore store = InMemoryFencedStore.create();
        FencedLock lock = registry().obtain(key);
        FencedLock rival = registry().obtain(key);
        lock.lock(SHORT);
        store.write(lock.token(), "ledger", "outer, part 1");
        await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(rival::tryLock);
        store.write(rival.token(), "ledger", "rival");
        rival.unlock();
        assertThat(lock.tryLock()).as("nested, after the loss: no new lease under the old section").isFalse();
        Throwable outer = catchThrowable(lock::unlock);
        assertThat(outer)
                .as("the outer hold's lease was lost and a rival wrote meanwhile; its unlock must report it")
                .isInstanceOf(ConcurrentModificationException.class);
    }
    /**
     * Checklist: ThreadLocal state left on a pooled thread.
     *
     * <p>Task 1 on a pooled thread behaves as {@code LockRegistryLeaderInitiator} does: it holds the
     * lock, the lease is lost, its next (heartbeat) {@code tryLock} fails, and it never unlocks.
     * Task 2 on the same thread locks again: it must get a new section (a new lease, a newer token)
     * and its unlock must release it — the lost section's record does not get in its way. (An
     * {@code unlock()} of a lock the thread never locked since is still answered as the lost
     * section's: the thread is the same, so the two cannot be told apart; docs/spring-integration.md
     * says so.)
     */
    @Test
    void aLostSectionNeverUnlockedDoesNotHinderTheNextTaskOnItsThread() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            FencedLock lock = registry().obtain(key);
            FencedLock rival = registry().obtain(key);
            FencingToken first = pool.submit(() -> {
                lock.lock(SHORT);
                return lock.token();
            }).get(30, TimeUnit.SECONDS);
            await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(rival::tryLock);
            assertThat(pool.submit(() -> lock.tryLock()).get(30, TimeUnit.SECONDS)).isFalse(); // task 1 ends here
            rival.unlock();

            FencingToken second = pool.submit(() -> {
                assertThat(lock.tryLock()).isTrue();
                try {
                    return lock.token();
                } finally {
                    lock.unlock();
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(second.isNewerThan(first)).isTrue();
            assertThat(rival.tryLock()).as("task 2's unlock released its lease").isTrue();
            rival.unlock();
        } finally {
            pool.shutdownNow();
        }
    }
}
