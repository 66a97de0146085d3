package dev.fencing.cli.backends;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
        for (int change = 0; change < 40; change++) {
            String rate = change % 2 == 0 ? fastRate : slowRate;
            Files.writeString(file, rate + "\n"); // the same kind of write as Nemesis.writeRate
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                    .until(() -> clock.rate() == Double.parseDouble(rate)); // the poller took it: the next may come
        }
        running.set(false);
        reader.join();
        assertThat(backwards.get()).as("readings lower than an earlier one (the worst by %d ns)", worst.get()).isZero();
    }
}
