package dev.fencing.core.spi;

import dev.fencing.core.MonotonicClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A monotonic clock that moves only when told. */
final class ManualClock implements MonotonicClock {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long nanoTime() {
        return now.get();
    }

    void advance(Duration by) {
        now.addAndGet(by.toNanos());
    }
}
