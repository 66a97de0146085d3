package dev.fencing.cli.backends;

import dev.fencing.core.MonotonicClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A monotonic clock whose rate a file sets, for a torture run's client processes: the nemesis
 * writes {@code 0.25} and the process's lock provider sees time pass at a quarter of the speed — a clock
 * running slow, so its leases outlive their TTL in real time — then {@code 1} again. Read every
 * 20 ms by a daemon thread; never goes back (the rate is kept between 0.01 and 100).
 */
final class RateFileClock implements MonotonicClock {

    /** Where the current rate began: real and reported readings then, and the rate since. */
    private record Segment(long realStart, long reportedStart, double rate) {
        long at(long real) {
            return reportedStart + (long) ((real - realStart) * rate);
        }
    }

    private final Path file;
    private volatile Segment segment;
    /** The highest reading handed out: a reader that took the old segment must not read past the new one. */
    private final java.util.concurrent.atomic.AtomicLong highest = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);

    private RateFileClock(Path file) {
        this.file = file;
        long now = System.nanoTime();
        this.segment = new Segment(now, now, 1.0);
    }

    /** A clock following the rate in {@code file} from now on. */
    static RateFileClock following(Path file) {
        RateFileClock clock = new RateFileClock(file);
        Thread poller = new Thread(clock::poll, "fencing-clock-rate");
        poller.setDaemon(true);
        poller.start();
        return clock;
    }

    @Override
    public long nanoTime() {
        // a reader holding the segment from before a rate change, with a real reading from after it,
        // extrapolates at the old rate past the new segment: never hand out less than before
        return highest.accumulateAndGet(segment.at(System.nanoTime()), Math::max);
    }

    private final java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();

    /** How many times it has read its file. */
    long polls() {
        return polls.get();
    }

    /** The rate it follows now. */
    double rate() {
        return segment.rate();
    }

    private void poll() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                polls.incrementAndGet();
                double rate = Double.parseDouble(Files.readString(file).trim());
                if (rate >= 0.01 && rate <= 100 && rate != segment.rate()) {
                    long real = System.nanoTime();
                    segment = new Segment(real, segment.at(real), rate);
                }
                Thread.sleep(20);
            } catch (IOException | NumberFormatException e) {
                // being rewritten, or gone with the run: keep the rate
                sleepQuietly();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
