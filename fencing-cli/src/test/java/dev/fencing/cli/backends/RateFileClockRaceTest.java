package dev.fencing.cli.backends;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RateFileClock never goes back, while the rate drops under a concurrent reader: a reader that
 * took the old (fast) segment but a later real reading extrapolates past where the new (slow)
 * segment will be (an adversary helper's test; before the fix, readings went back by up to 5 ms at
 * every slow-down).
 */
class RateFileClockRaceTest {

    @Test
    void neverGoesBackWhileTheRateDropsUnderAConcurrentReader(@TempDir Path dir) throws Exception {
        assertNeverBack(dir, "100", "0.01");
    }

    /** The rates the nemesis's skew itself writes (Nemesis.slowClient): 0.25, then 1. */
    @Test
    void neverGoesBackAtTheNemesisRates(@TempDir Path dir) throws Exception {
        assertNeverBack(dir, "1", "0.25");
    }

    private static void assertNeverBack(Path dir, String fastRate, String slowRate) throws Exception {
        Path file = dir.resolve("clock");
        Files.writeString(file, "1\n");
        RateFileClock clock = RateFileClock.following(file);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong backwards = new AtomicLong();
        AtomicLong worst = new AtomicLong();
        Thread reader = new Thread(() -> {
            long last = clock.nanoTime();
            while (running.get()) {
                long now = clock.nanoTime();
                if (now < last) {
                    backwards.incrementAndGet();
                    worst.accumulateAndGet(last - now, Math::max);
                }
                last = Math.max(last, now);
            }
        });
        reader.start();
        long end = System.nanoTime() + 2_000_000_000L; // some 40 rate changes
        boolean fast = false;
        while (System.nanoTime() < end) {
            fast = !fast;
            Files.writeString(file, (fast ? fastRate : slowRate) + "\n"); // the same kind of write as Nemesis.writeRate
            Thread.sleep(45); // more than the poller's 20 ms: it sees every rate
        }
        running.set(false);
        reader.join();
        assertThat(backwards.get()).as("readings lower than an earlier one (the worst by %d ns)", worst.get()).isZero();
    }
}
