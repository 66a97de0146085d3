package dev.fencing.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SharedWatchesTest {

    /** A watch that knows whether it is open; counts how many are open at once. */
    private static final class Watch {
        final int number;
        volatile boolean open = true;

        Watch(int number) {
            this.number = number;
        }
    }

    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicInteger closed = new AtomicInteger();
    private final AtomicInteger openNow = new AtomicInteger();
    private final AtomicInteger mostOpenAtOnce = new AtomicInteger();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(8);

    private final SharedWatches<String, Watch> watches = new SharedWatches<>(this::open, this::close);

    private Watch open(String key) {
        mostOpenAtOnce.accumulateAndGet(openNow.incrementAndGet(), Math::max);
        Watch watch = new Watch(opened.incrementAndGet());
        events.add("open " + key + " " + watch.number);
        return watch;
    }

    private void close(String key, Watch watch) {
        events.add("close " + key + " " + watch.number);
        watch.open = false;
        openNow.decrementAndGet();
        closed.incrementAndGet();
    }

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void theFirstWaiterOpensAndTheLastClosesOneWatchPerKey() {
        SharedWatches<String, Watch>.Share first = watches.join("a");
        SharedWatches<String, Watch>.Share second = watches.join("a");
        SharedWatches<String, Watch>.Share other = watches.join("b");
        assertThat(second.watch()).isSameAs(first.watch());
        assertThat(other.watch()).isNotSameAs(first.watch());
        assertThat(watches.waiters("a")).isEqualTo(2);
        assertThat(watches.keys()).containsExactlyInAnyOrder("a", "b");

        first.close();
        first.close(); // a second close of one share does not count twice
        assertThat(second.watch().open).isTrue();
        assertThat(watches.current("a")).containsSame(second.watch());
        second.close();
        other.close();

        assertThat(events).containsExactly("open a 1", "open b 2", "close a 1", "close b 2");
        assertThat(watches.current("a")).isEmpty();
        assertThat(watches.waiters("a")).isZero();
        assertThat(watches.keys()).isEmpty();
    }

    @Test
    void aWaiterArrivingWhileTheLastOneClosesGetsANewWatchOpenedAfterTheClose() throws Exception {
        CountDownLatch closing = new CountDownLatch(1);
        CountDownLatch finishClose = new CountDownLatch(1);
        SharedWatches<String, Watch> slowClose = new SharedWatches<>(this::open, (key, watch) -> {
            closing.countDown();
            awaitLatch(finishClose);
            close(key, watch);
        });
        SharedWatches<String, Watch>.Share last = slowClose.join("r");
        Future<?> leaving = threads.submit(last::close);
        assertThat(closing.await(30, TimeUnit.SECONDS)).isTrue();

        Thread[] joiner = new Thread[1];
        Future<SharedWatches<String, Watch>.Share> joining = threads.submit(() -> {
            joiner[0] = Thread.currentThread();
            return slowClose.join("r");
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> joiner[0] != null
                && joiner[0].getState() == Thread.State.BLOCKED);
        assertThat(joining).isNotDone();

        finishClose.countDown();
        leaving.get(30, TimeUnit.SECONDS);
        SharedWatches<String, Watch>.Share next = joining.get(30, TimeUnit.SECONDS);
        assertThat(next.watch()).isNotSameAs(last.watch());
        assertThat(next.watch().open).as("the newcomer's watch").isTrue();
        assertThat(events).containsExactly("open r 1", "close r 1", "open r 2");
        assertThat(slowClose.current("r")).containsSame(next.watch());
        next.close();
        assertThat(events).endsWith("close r 2");
    }

    @Test
    void manyThreadsJoiningAndLeavingNeverHoldAClosedWatchNorOpenTwoAtOnce() throws Exception {
        int threadCount = 8;
        int rounds = 2_000;
        CyclicBarrier start = new CyclicBarrier(threadCount);
        AtomicInteger heldClosed = new AtomicInteger();
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            running.add(threads.submit(() -> {
                start.await();
                for (int i = 0; i < rounds; i++) {
                    try (SharedWatches<String, Watch>.Share share = watches.join("hot")) {
                        if (!share.watch().open) {
                            heldClosed.incrementAndGet();
                        }
                        Thread.yield();
                        if (!share.watch().open) {
                            heldClosed.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> each : running) {
            each.get(60, TimeUnit.SECONDS);
        }
        assertThat(heldClosed).as("shares that saw their watch closed").hasValue(0);
        assertThat(mostOpenAtOnce).as("watches of one key open at once").hasValue(1);
        assertThat(opened.get()).isEqualTo(closed.get()).isPositive();
        assertThat(watches.waiters("hot")).isZero();
        assertThat(watches.keys()).isEmpty();
        for (int i = 0; i + 1 < events.size(); i += 2) {
            assertThat(events.get(i)).startsWith("open");
            assertThat(events.get(i + 1)).startsWith("close");
        }
    }

    @Test
    void aFailedOpenLeavesNothingRegisteredAndTheNextJoinTriesAgain() {
        AtomicInteger attempts = new AtomicInteger();
        SharedWatches<String, Watch> flaky = new SharedWatches<>(key -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("server refused");
            }
            return open(key);
        }, this::close);

        assertThatThrownBy(() -> flaky.join("r")).isInstanceOf(IllegalStateException.class)
                .hasMessage("server refused");
        assertThat(flaky.waiters("r")).isZero();
        assertThat(flaky.keys()).isEmpty();

        try (SharedWatches<String, Watch>.Share share = flaky.join("r")) {
            assertThat(share.watch().open).isTrue();
            assertThat(flaky.waiters("r")).isEqualTo(1);
        }
        assertThat(events).containsExactly("open r 1", "close r 1");
    }

    @Test
    void anOpenThatReturnsNullFailsTheJoinAndLeavesNothingRegistered() {
        AtomicInteger attempts = new AtomicInteger();
        SharedWatches<String, Watch> broken = new SharedWatches<>(
                key -> attempts.incrementAndGet() == 1 ? null : open(key), this::close);

        assertThatThrownBy(() -> broken.join("r")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("null");
        assertThat(broken.waiters("r")).isZero();
        assertThat(broken.keys()).isEmpty();
        try (SharedWatches<String, Watch>.Share share = broken.join("r")) {
            assertThat(share.watch().open).isTrue();
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
