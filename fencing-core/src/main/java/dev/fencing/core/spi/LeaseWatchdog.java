package dev.fencing.core.spi;

import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renews leases in the background every {@code ttl / 3} on a small scheduler of daemon threads,
 * until the lease is released or lost. One {@link #shared()} instance serves every provider in a
 * JVM unless a provider is given its own.
 *
 * <p>A renewal that finds the lock gone marks the lease lost and tells the provider's listener;
 * a renewal that fails with an error is retried on the next tick, and the lease is marked lost
 * once its local validity runs out. No exception escapes a scheduler thread.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private static final class Shared {
        static final LeaseWatchdog INSTANCE = new LeaseWatchdog(2);
    }

    private final ScheduledThreadPoolExecutor scheduler;

    private LeaseWatchdog(int threads) {
        int pool = POOLS.incrementAndGet();
        AtomicInteger counter = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = Executors.defaultThreadFactory().newThread(runnable);
            thread.setName("fencing-watchdog-" + pool + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        this.scheduler = new ScheduledThreadPoolExecutor(threads, factory);
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** The JVM-wide watchdog: two daemon threads, never closed. */
    public static LeaseWatchdog shared() {
        return Shared.INSTANCE;
    }

    /** A watchdog of its own with {@code threads} daemon threads (1 to 16); close it when done. */
    public static LeaseWatchdog create(int threads) {
        if (threads < 1 || threads > 16) {
            throw new IllegalArgumentException("watchdog threads must be between 1 and 16, got " + threads);
        }
        return new LeaseWatchdog(threads);
    }

    /**
     * Starts renewing {@code lease} to {@code ttl} every {@code ttl / 3}.
     *
     * @return the schedule; the lease cancels it when released or lost
     */
    ScheduledFuture<?> watch(AbstractLease lease, Duration ttl) {
        Checks.requireNonNull("lease", lease);
        long periodNanos = Math.max(1_000_000, ttl.toNanos() / 3);
        return scheduler.scheduleWithFixedDelay(
                () -> lease.renewFromWatchdog(ttl), periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /** How many leases this watchdog is renewing now. */
    public int watchedCount() {
        return scheduler.getQueue().size();
    }

    /** Stops renewing every lease and ends the threads. The shared watchdog cannot be closed. */
    @Override
    public void close() {
        if (this == Shared.INSTANCE) {
            throw new IllegalStateException("the shared LeaseWatchdog cannot be closed");
        }
        scheduler.shutdownNow();
    }

    /** Waits up to {@code timeout} for the threads to end after {@link #close()}. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return scheduler.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
}
