package dev.fencing.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.redis.RedisFencedStore;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import net.javacrumbs.shedlock.support.ShortKeepAlive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's own executor over two "instances" of a service (each its own Redis lock provider and
 * ShedLock provider) against the testkit's Redis, writing through a fenced Redis store.
 */
class FencedShedLockProviderIT {

    private static final RedisTestServer redis = TestServers.redis();

    private final String prefix = "shedlock-" + UUID.randomUUID() + ":";
    private final RedisLockProvider locksA = RedisLockProvider.create(redis.uri());
    private final RedisLockProvider locksB = RedisLockProvider.create(redis.uri());
    private final FencedShedLockProvider shedLockA = FencedShedLockProvider.create(locksA);
    private final FencedShedLockProvider shedLockB = FencedShedLockProvider.create(locksB);
    private final LockingTaskExecutor instanceA = new DefaultLockingTaskExecutor(shedLockA);
    private final LockingTaskExecutor instanceB = new DefaultLockingTaskExecutor(shedLockB);
    private final RedisClient client = RedisClient.create(redis.uri());
    private final StatefulRedisConnection<String, String> connection = client.connect();
    private final FencedStore ledger = RedisFencedStore.create(connection, prefix);
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void close() {
        threads.shutdownNow();
        shedLockA.close();
        shedLockB.close();
        locksA.close();
        locksB.close();
        connection.close();
        client.shutdown();
    }

    private static LockConfiguration lock(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    private String name(String base) {
        return prefix + base;
    }

    @Test
    void aTaskWritesWithItsTokenAndANestedTaskSeesItsOwn() {
        AtomicInteger ran = new AtomicInteger();
        instanceA.executeWithLock((Runnable) () -> {
            FencingToken outer = FencedLocks.currentToken();
            assertThat(outer.resource()).isEqualTo(name("close-day"));
            ledger.write(outer, "day", "closed");
            instanceA.executeWithLock((Runnable) () -> assertThat(FencedLocks.currentToken().resource())
                    .isEqualTo(name("inner")), lock(name("inner"), Duration.ofSeconds(10), Duration.ZERO));
            assertThat(FencedLocks.currentToken()).isEqualTo(outer);
            ran.incrementAndGet();
        }, lock(name("close-day"), Duration.ofSeconds(10), Duration.ZERO));
        assertThat(ran).hasValue(1);
        assertThat(ledger.read("day").orElseThrow().value()).isEqualTo("closed");
        assertThat(FencedLocks.currentLease()).as("nothing left on the thread").isEmpty();
    }

    @Test
    void whileOneInstanceRunsTheTaskTheOtherSkipsIt() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Future<?> first = threads.submit(() -> instanceA.executeWithLock((Runnable) () -> {
            running.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> finish.getCount() == 0);
        }, lock(name("job"), Duration.ofSeconds(10), Duration.ZERO)));
        running.await(10, TimeUnit.SECONDS);
        AtomicInteger ranOnB = new AtomicInteger();
        instanceB.executeWithLock((Runnable) ranOnB::incrementAndGet, lock(name("job"), Duration.ofSeconds(10), Duration.ZERO));
        assertThat(ranOnB).as("skipped while A runs it").hasValue(0);
        finish.countDown();
        first.get(10, TimeUnit.SECONDS);
        instanceB.executeWithLock((Runnable) ranOnB::incrementAndGet, lock(name("job"), Duration.ofSeconds(10), Duration.ZERO));
        assertThat(ranOnB).hasValue(1);
    }

    /**
     * The zombie: A's execution pauses past lockAtMostFor, B's runs and writes, then A wakes up
     * and writes — refused, because B's token is newer. ShedLock alone would let it through.
     */
    @Test
    void anExecutionThatOutlivedLockAtMostForHasItsLateWriteRefused() throws Exception {
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        Future<Throwable> zombie = threads.submit(() -> {
            Throwable[] refused = new Throwable[1];
            instanceA.executeWithLock((Runnable) () -> {
                FencingToken mine = FencedLocks.currentToken();
                paused.countDown();
                await().atMost(Duration.ofSeconds(20)).until(() -> wake.getCount() == 0); // a long GC pause
                try {
                    ledger.write(mine, "balance", "written by the zombie");
                } catch (StaleTokenException e) {
                    refused[0] = e;
                }
            }, lock(name("settle"), Duration.ofMillis(300), Duration.ZERO));
            return refused[0];
        });
        paused.await(10, TimeUnit.SECONDS);
        AtomicInteger ranOnB = new AtomicInteger();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            instanceB.executeWithLock((Runnable) () -> {
                ledger.write(FencedLocks.currentToken(), "balance", "written by the next execution");
                ranOnB.incrementAndGet();
            }, lock(name("settle"), Duration.ofSeconds(10), Duration.ZERO));
            return ranOnB.get() == 1;
        });
        wake.countDown();
        assertThat(zombie.get(20, TimeUnit.SECONDS)).isInstanceOf(StaleTokenException.class);
        assertThat(ledger.read("balance").orElseThrow().value()).isEqualTo("written by the next execution");
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterAShortTaskThenFreesIt() {
        Instant started = Instant.now();
        instanceA.executeWithLock((Runnable) () -> { }, new LockConfiguration(started, name("report"),
                Duration.ofSeconds(30), Duration.ofMillis(800)));
        AtomicInteger ranOnB = new AtomicInteger();
        instanceB.executeWithLock((Runnable) ranOnB::incrementAndGet, lock(name("report"), Duration.ofSeconds(30), Duration.ZERO));
        assertThat(ranOnB).as("still held for lockAtLeastFor").hasValue(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            instanceB.executeWithLock((Runnable) ranOnB::incrementAndGet, lock(name("report"), Duration.ofSeconds(30), Duration.ZERO));
            return ranOnB.get() == 1;
        });
        assertThat(Duration.between(started, Instant.now())).isGreaterThanOrEqualTo(Duration.ofMillis(800));
    }

    /** A job scheduled every 20 ms on two instances: runs never overlap and no increment is lost. */
    @Test
    void aScheduledJobOnTwoInstancesNeverOverlapsAndLosesNoIncrement() throws Exception {
        AtomicInteger running = new AtomicInteger();
        List<String> overlaps = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
        try {
            for (LockingTaskExecutor instance : List.of(instanceA, instanceB)) {
                scheduler.scheduleWithFixedDelay(() -> instance.executeWithLock((Runnable) () -> {
                    if (running.incrementAndGet() != 1) {
                        overlaps.add("two executions at once");
                    }
                    ledger.update(FencedLocks.currentToken(), "runs",
                            count -> String.valueOf(Integer.parseInt(count.orElse("0")) + 1));
                    runs.incrementAndGet();
                    running.decrementAndGet();
                }, lock(name("count"), Duration.ofSeconds(10), Duration.ZERO)), 0, 20, TimeUnit.MILLISECONDS);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> runs.get() >= 40);
        } finally {
            scheduler.shutdown();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
        assertThat(overlaps).isEmpty();
        assertThat(ledger.read("runs").orElseThrow().value()).isEqualTo(String.valueOf(runs.get()));
    }

    @Test
    void outsideATaskThereIsNoTokenAndBadDurationsAreRefused() {
        assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("FencedShedLockProvider");
        assertThatThrownBy(() -> shedLockA.lock(new LockConfiguration(Instant.now(), name("x"), Duration.ofDays(8),
                Duration.ZERO))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT192H");
        assertThatThrownBy(() -> FencedShedLockProvider.create(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void extendRenewsTheLeaseAndKeepsTheToken() {
        instanceA.executeWithLock((Runnable) () -> {
            FencingToken before = FencedLocks.currentToken();
            net.javacrumbs.shedlock.core.LockExtender.extendActiveLock(Duration.ofSeconds(20), Duration.ZERO);
            assertThat(FencedLocks.currentLease().orElseThrow().remaining()).isGreaterThan(Duration.ofSeconds(15));
            assertThat(FencedLocks.currentToken()).isEqualTo(before);
        }, lock(name("long"), Duration.ofSeconds(2), Duration.ZERO));
    }

    /**
     * ShedLock's KeepAliveLockProvider takes only an ExtensibleLockProvider: wrapped in it, a task
     * that runs for three times lockAtMostFor keeps its lock (the other instance is skipped all the
     * while) and its lease stays valid; after the unlock the other instance gets it.
     */
    @Test
    void keepAliveLockProviderKeepsALongTasksLeaseAlive() {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            KeepAliveLockProvider keepAlive = ShortKeepAlive.over(shedLockA, timer, Duration.ofSeconds(1));
            String name = name("kept-alive");
            SimpleLock held = keepAlive.lock(lock(name, Duration.ofSeconds(1), Duration.ZERO)).orElseThrow();
            FencingToken token = FencedLocks.currentToken();
            Instant until = Instant.now().plusSeconds(3);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
                assertThat(shedLockB.lock(lock(name, Duration.ofSeconds(30), Duration.ZERO)))
                        .as("the other instance, while the long task runs").isEmpty();
                return Instant.now().isAfter(until);
            });
            assertThat(FencedLocks.currentToken()).isEqualTo(token);
            held.unlock();
            shedLockB.lock(lock(name, Duration.ofSeconds(30), Duration.ZERO)).orElseThrow().unlock();
        } finally {
            timer.shutdownNow();
        }
    }
}
