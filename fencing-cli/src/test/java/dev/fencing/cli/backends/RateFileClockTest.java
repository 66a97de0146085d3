package dev.fencing.cli.backends;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RateFileClockTest {

    @Test
    void followsTheRateInItsFileAndNeverGoesBack(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("clock");
        Files.writeString(file, "1\n");
        RateFileClock clock = RateFileClock.following(file);
        long before = clock.nanoTime();

        Files.writeString(file, "0.5\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> clock.rate() == 0.5);
        long realStart = System.nanoTime();
        long start = clock.nanoTime();
        Thread.sleep(500); // an interval to measure the rate over, not a wait for a result
        long end = clock.nanoTime();
        long realEnd = System.nanoTime();
        assertThat(start).isGreaterThanOrEqualTo(before);
        assertThat((double) (end - start) / (realEnd - realStart)).as("the rate over 500 ms (a preempted reading only lowers it)").isBetween(0.35, 0.51);

        Files.writeString(file, "1\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> clock.rate() == 1.0);
        assertThat(clock.nanoTime()).as("after the rate changed back").isGreaterThanOrEqualTo(end);

        for (String bad : new String[] {"0", "not a rate"}) { // out of range, unreadable: each ignored
            Files.writeString(file, bad + "\n");
            long polled = clock.polls();
            await().atMost(Duration.ofSeconds(30)).until(() -> clock.polls() >= polled + 2);
            assertThat(clock.rate()).as("after reading '%s'", bad).isEqualTo(1.0);
        }
    }
}
