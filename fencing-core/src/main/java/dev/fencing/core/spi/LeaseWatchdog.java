package dev.fencing.core.spi;

import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews leases in the background every {@code ttl / 3}, until the lease is released, lost, or
 * its provider closed. One {@link #shared()} instance serves every provider in a JVM unless a
 * provider is given its own.
 *
 * <h2>One slow server delays only its own leases</h2>
 * The scheduler's threads only tick; they never wait for a server. Each tick hands the renewal
 * to a renewal thread of its own (created on demand, ended after 30 s idle), and a lease has at
 * most one renewal in flight. Each provider may have at most {@value #MAX_RENEWALS_IN_FLIGHT}
 * renewals in flight at once — a cap per provider, not per watchdog, so that the leases of a
 * stalled server can use up their provider's share and never another provider's: a
 * renewal stuck on a stalled server holds one thread until its client gives up, and while it is
 * stuck that lease's later ticks are skipped — every other lease keeps its own schedule. A lease
 * whose renewal has not answered when its local validity runs out is marked lost. Providers bound
 * each renewal by their client's timeout (PostgreSQL: a query timeout of a third of the TTL).
 *
 * <h2>Failures</h2>
 * A renewal that finds the lock gone marks the lease lost and tells the provider's listener; a
 * renewal that fails with an exception is retried on the next tick, and the lease is marked lost
 * once its local validity runs out. A renewal that throws an {@link Error} marks the lease lost
 * at once, with the error as the cause of the listener's {@code onLost} (nothing can be known
 * about the lock after it). No exception escapes a watchdog thread and no schedule ends silently.
 */
public final class LeaseWatchdog implements AutoCloseable {

    /** The most renewals waiting for their servers at once, per provider (per lease group). */
    public static final int MAX_RENEWALS_IN_FLIGHT = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(LeaseWatchdog.class);
    private static final AtomicInteger POOLS = new AtomicInteger();

    private static final class Shared {
        static final LeaseWatchdog INSTANCE = new LeaseWatchdog(2);
    }

    private final ScheduledThreadPoolExecutor scheduler;
    private final ThreadPoolExecutor renewals;
    private final Map<Object, AtomicInteger> inFlightByGroup = new ConcurrentHashMap<>();

    private LeaseWatchdog(int threads) {
        int pool = POOLS.incrementAndGet();
        this.scheduler = new ScheduledThreadPoolExecutor(threads, daemons("fencing-watchdog-" + pool + "-"));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.renewals = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), daemons("fencing-renewal-" + pool + "-"));
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = Executors.defaultThreadFactory().newThread(runnable);
            thread.setName(prefix + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** The JVM-wide watchdog: two ticking daemon threads plus renewal threads on demand, never closed. */
    public static LeaseWatchdog shared() {
        return Shared.INSTANCE;
    }

    /** A watchdog of its own with {@code threads} ticking daemon threads (1 to 16); close it when done. */
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
    ScheduledFuture<?> watch(AbstractLease lease, Duration ttl, Object group) {
        Checks.requireNonNull("lease", lease);
        long periodNanos = Math.max(1_000_000, ttl.toNanos() / 3);
        AtomicBoolean inFlight = new AtomicBoolean();
        return scheduler.scheduleWithFixedDelay(() -> tick(lease, ttl, inFlight, group), periodNanos, periodNanos,
                TimeUnit.NANOSECONDS);
    }

    private void tick(AbstractLease lease, Duration ttl, AtomicBoolean inFlight, Object group) {
        if (!inFlight.compareAndSet(false, true)) {
            lease.renewalStillInFlight();
            return;
        }
        AtomicInteger groupInFlight = inFlightByGroup.computeIfAbsent(group, g -> new AtomicInteger());
        if (groupInFlight.incrementAndGet() > MAX_RENEWALS_IN_FLIGHT) {
            groupInFlight.decrementAndGet();
            inFlight.set(false);
            LOG.warn("{} renewals of one provider are waiting for their server; renewal of {} skipped this tick",
                    MAX_RENEWALS_IN_FLIGHT, lease.token());
            return;
        }
        try {
            renewals.execute(() -> {
                try {
                    lease.renewFromWatchdog(ttl);
                } finally {
                    groupInFlight.decrementAndGet();
                    inFlight.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            groupInFlight.decrementAndGet();
            inFlight.set(false);
        }
    }

    /** Runs {@code task} once after {@code delayNanos} on the ticking threads (it must not block). */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    /** How many leases this watchdog is renewing now. */
    public int watchedCount() {
        // the periodic renewals only, not the one-shot early-warning timers
        return (int) scheduler.getQueue().stream()
                .filter(task -> task instanceof java.util.concurrent.RunnableScheduledFuture<?> scheduled
                        && scheduled.isPeriodic())
                .count();
    }

    /** Stops renewing every lease and ends the threads. The shared watchdog cannot be closed. */
    @Override
    public void close() {
        if (this == Shared.INSTANCE) {
            throw new IllegalStateException("the shared LeaseWatchdog cannot be closed");
        }
        scheduler.shutdownNow();
        renewals.shutdownNow();
    }

    /** Waits up to {@code timeout} for the threads to end after {@link #close()}. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        return scheduler.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)
                && renewals.awaitTermination(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
