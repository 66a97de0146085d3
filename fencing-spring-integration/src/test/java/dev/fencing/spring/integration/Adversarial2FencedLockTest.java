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
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Second adversarial round on {@link FencedLockRegistry} / {@link FencedLock}, over the testkit's
 * in-memory lock server; every registry is a client of its own (two registries = two processes).
 */
class Adversarial2FencedLockTest {

    private static final Duration SHORT = Duration.ofMillis(300);

    private final InMemoryLockServer server = new InMemoryLockServer();
    private final List<LockProvider> providers = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final String key = "adv2-" + UUID.randomUUID();

    @AfterEach
    void close() {
        threads.shutdownNow();
        providers.forEach(LockProvider::close);
    }

    private FencedLockRegistry registry() {
        return FencedLockRegistry.builder(provider()).ttl(Duration.ofSeconds(10)).build();
    }

    private LockProvider provider() {
        LockProvider provider = InMemoryLockProvider.builder().server(server).build();
        providers.add(provider);
        return provider;
    }

    /**
     * Guarantee 3 — "every unlock of the section's holds throws ConcurrentModificationException"
     * (FencedLock Javadoc) — checked at the INNER unlock.
     *
     * <p>Attack: a thread holds the lock twice (an outer {@code lock(ttl)} and a nested {@code lock()}
     * in a nested handler / {@code executeLocked}); the lease lapses and a rival registry takes it
     * over and writes. The nested section now ends with {@code unlock()}: it is not the last hold,
     * so {@code unlock()} just decrements the local count and returns normally — the nested
     * section's code (e.g. {@code executeLocked}, which commits/acks after a normal unlock) is
     * told its critical section ran under the lock, although part of it ran without it. Only the
     * outer unlock reports the loss.
     */
    @Test
    void theInnerUnlockOfALostSectionReportsTheLoss() {
        FencedStore store = InMemoryFencedStore.create();
        FencedLock lock = registry().obtain(key);
        FencedLock rival = registry().obtain(key);
        lock.lock(SHORT);
        Throwable inner;
        Throwable outer;
        try {
            lock.lock(); // nested hold on the same lease
            try {
                await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(rival::tryLock);
                store.write(rival.token(), "ledger", "rival");
                rival.unlock();
            } finally {
                inner = catchThrowable(lock::unlock);
            }
        } finally {
            outer = catchThrowable(lock::unlock);
        }
        assertThat(outer).as("outer unlock").isInstanceOf(ConcurrentModificationException.class);
        assertThat(inner)
                .as("the nested section's unlock after its lease was lost and a rival wrote (outer unlock: %s)",
                        outer)
                .isInstanceOf(ConcurrentModificationException.class);
    }

    /**
     * Guarantee 1 — a write with another KEY's token, by a thread still lexically inside the lost
     * section of its key.
     *
     * <p>Attack: a thread holds lock Y (an outer batch lock) and, inside, lock X (a handler's lock,
     * {@code lock(ttl)}). X's lease lapses and a rival registry takes X. A nested step of the handler
     * probes X with {@code tryLock()} (a nested {@code LockRequestHandlerAdvice} with a wait, say),
     * gets {@code false} — which ends X's section behind the handler's back — and the handler, still
     * between its {@code lock} and {@code unlock} of X, writes X's item with
     * {@code FencedLockRegistry.currentToken()}. It gets Y's token, not X's (lost) token nor an
     * exception. On a fresh item the write is accepted under Y's fencing, and from then on X's
     * rightful holder is refused on its own item (ForeignTokenException).
     */
    @Test
    void currentTokenAfterANestedProbeEndedTheSectionIsNotAnotherKeysToken() throws Exception {
        FencedStore store = InMemoryFencedStore.create();
        FencedLockRegistry registry = registry();
        FencedLock y = registry.obtain(key + "-Y");
        FencedLock x = registry.obtain(key + "-X");
        FencedLock rivalX = registry().obtain(key + "-X");
        String item = "invoice-" + UUID.randomUUID();
        AtomicReference<Object> current = new AtomicReference<>();
        ExecutorService rivalThread = Executors.newSingleThreadExecutor();
        Throwable handlerWrite;
        Throwable rivalWrite;
        y.lock();
        try {
            x.lock(SHORT);
            try {
                // the rival is another process: its own registry, on its own thread
                Future<FencingToken> rivalHolds = rivalThread.submit(() -> {
                    await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(rivalX::tryLock);
                    return rivalX.token();
                });
                FencingToken rivalToken = rivalHolds.get(30, TimeUnit.SECONDS);
                assertThat(x.tryLock()).as("nested probe after the loss").isFalse();
                try {
                    current.set(FencedLockRegistry.currentToken());
                } catch (RuntimeException e) {
                    current.set(e);
                }
                handlerWrite = current.get() instanceof FencingToken t
                        ? catchThrowable(() -> store.write(t, item, "paid by the lost handler"))
                        : null;
                rivalWrite = catchThrowable(() -> store.write(rivalToken, item, "paid by X's holder"));
                rivalThread.submit(() -> {
                            rivalX.unlock();
                            return null;
                        })
                        .get(30, TimeUnit.SECONDS);
            } finally {
                catchThrowable(x::unlock);
            }
        } finally {
            y.unlock();
            rivalThread.shutdownNow();
        }
        assertThat(current.get())
                .as("currentToken() inside X's (lost) section answered %s; the handler's write with it: %s; X's"
                        + " rightful holder's write afterwards: %s", current.get(), handlerWrite, rivalWrite)
                .satisfiesAnyOf(
                        c -> assertThat(c).isInstanceOf(RuntimeException.class),
                        c -> assertThat(((FencingToken) c).resource()).isEqualTo(x.name()));
    }

    /**
     * Guarantee 1/3, at its limit: a nested lock after a loss throws, and a caller that catches it
     * and locks again (a retry advice, a catch-and-retry loop) starts a NEW section with a newer
     * token. The lock cannot tell that retry from Spring's leader initiator locking again after a
     * lost term, which must work; so the retry is allowed, and what protects the data is the token
     * the section read under: a write with it is refused. docs/spring-integration.md says to read
     * again under the new section rather than carry reads across the loss.
     */
    @Test
    void aRetryAfterTheLossStartsANewSectionAndTheOldSectionsTokenStaysRefused() {
        FencedStore store = InMemoryFencedStore.create();
        FencedLock lock = registry().obtain(key);
        FencedLock rival = registry().obtain(key);
        lock.lock(SHORT);
        Throwable firstNested;
        FencingToken retried;
        Throwable outer;
        FencingToken section = lock.token(); // the token the section reads and writes under
        try {
            store.write(section, "balance", "100");
            await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(rival::tryLock);
            store.write(rival.token(), "balance", "50"); // the rival's update
            rival.unlock();
            firstNested = catchThrowable(lock::lock);
            lock.lock(); // the retry: a new section
            try {
                retried = lock.token();
                assertThatThrownBy(() -> store.write(section, "balance", "100 - 10"))
                        .as("a write of the old section's read, with its token").isInstanceOf(
                                dev.fencing.core.StaleTokenException.class);
            } finally {
                lock.unlock();
            }
        } finally {
            outer = catchThrowable(lock::unlock);
        }
        assertThat(firstNested).as("first nested lock()").isInstanceOf(ConcurrentModificationException.class);
        assertThat(retried.isNewerThan(section)).isTrue();
        assertThat(outer).as("the ended section's own unlock").isInstanceOf(ConcurrentModificationException.class);
        assertThat(store.read("balance").orElseThrow().value()).isEqualTo("50");
    }

    /**
     * Guarantee 5 — an instance of {@code LockRegistryLeaderInitiator} never leads again after its
     * registry's housekeeping.
     *
     * <p>Attack: the initiator obtains its role's lock ONCE (when started) and keeps the instance.
     * The leader yields (or loses its lease, or is between attempts after an error): its lock is
     * unlocked for {@code busyWaitMillis}. The application's housekeeping calls
     * {@code expireUnusedOlderThan} (the point of an {@code ExpirableLockRegistry}), which forgets
     * the instance; any other code then obtains the role's key (a health check's
     * {@code registry.obtain(role).isLocked()}, {@code renewLock(role)}, a handler advice), which
     * makes a new instance. From then on every {@code tryLock} of the initiator's instance throws
     * {@code IllegalStateException} ("forgotten ... call obtain(key) again") — which the initiator
     * never does: it logs at debug and retries for ever, and the service has no leader although
     * nobody holds the lock.
     */
    @Test
    void aLeaderInitiatorLeadsAgainAfterItsLockWasExpiredAndTheKeyObtained() throws Exception {
        FencedLockRegistry registry = registry();
        String role = key + "-role";
        AtomicInteger granted = new AtomicInteger();
        DefaultCandidate candidate = new DefaultCandidate("instance-1", role) {
            @Override
            public void onGranted(Context ctx) {
                super.onGranted(ctx);
                granted.incrementAndGet();
            }
        };
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(2_000);
        initiator.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> initiator.getContext().isLeader());
            FencedLock initiators = registry.obtain(role); // held, so the initiator's own instance
            initiator.getContext().yield();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> !initiator.getContext().isLeader() && !initiators.isLocked());
            registry.expireUnusedOlderThan(0); // housekeeping
            FencedLock healthCheck = registry.obtain(role); // any other code obtaining the role's key
            assertThat(healthCheck).as("precondition: the initiator's instance was forgotten").isNotSameAs(initiators);
            assertThat(healthCheck.isLocked()).isFalse();

            boolean ledAgain;
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> granted.get() == 2);
                ledAgain = true;
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                ledAgain = false;
            }
            Throwable whatTheInitiatorGets = catchThrowable(initiators::tryLock);
            assertThat(ledAgain)
                    .as("nobody holds the role's lock, yet the initiator did not lead again in 10 s; its tryLock"
                            + " throws: %s", String.valueOf(whatTheInitiatorGets))
                    .isTrue();
        } finally {
            initiator.stop();
        }
    }

    /**
     * Guarantee 4 (coverage; expected to pass) — {@code expireUnusedOlderThan} hammered concurrently
     * with obtain/lock/unlock of one key by four threads of one registry: never two threads inside at
     * once (two instances of one key would each have their own local lock, but the server still
     * serializes them), every write accepted in token order, and no exception but the documented
     * {@code IllegalStateException} of a forgotten instance.
     */
    @Test
    void expiryRacingObtainLockAndUnlockNeverLetsTwoThreadsIn() throws Exception {
        FencedStore store = InMemoryFencedStore.create();
        FencedLockRegistry registry = registry();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger sections = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        List<Future<?>> workers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            workers.add(threads.submit(() -> {
                while (!stop.get()) {
                    FencedLock lock = registry.obtain(key);
                    try {
                        if (!lock.tryLock(50, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                    } catch (IllegalStateException forgotten) {
                        continue; // documented: obtain again
                    } catch (Throwable e) {
                        unexpected.add(e);
                        continue;
                    }
                    try {
                        if (inside.incrementAndGet() != 1) {
                            unexpected.add(new AssertionError("two threads inside"));
                        }
                        store.write(lock.token(), "counter", Thread.currentThread().getName());
                        sections.incrementAndGet();
                        inside.decrementAndGet();
                    } catch (Throwable e) {
                        unexpected.add(e);
                        inside.decrementAndGet();
                    } finally {
                        try {
                            lock.unlock();
                        } catch (Throwable e) {
                            unexpected.add(e);
                        }
                    }
                }
                return null;
            }));
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() < until) {
            registry.expireUnusedOlderThan(0);
        }
        stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(30, TimeUnit.SECONDS);
        }
        assertThat(unexpected).as("unexpected failures").isEmpty();
        assertThat(sections.get()).isPositive();
    }
}
