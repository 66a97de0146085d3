package dev.fencing.cli.commands;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingException;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.history.LeaseSpan;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * One fenced increment, as {@code worker} and {@code torture} run it: acquire, stay inside the
 * critical section for {@code pause}, add one to the counter with the lease's token (the store's
 * fenced {@code update}), release — every outcome counted in {@link Outcomes}. Just before the
 * write it asks the lease whether it is still valid, for the lease rule of the history checks.
 */
final class FencedIncrement {

    /** How long to wait after a failed acquire before the next, so an outage is not a busy loop. */
    static final long UNREACHABLE_PAUSE_MILLIS = 50;

    private FencedIncrement() {}

    /**
     * @param onGranted told every granted token, before the write
     * @return the value written and its token, or null if the write was refused or failed
     */
    static StoredValue run(LockProvider locks, FencedStore store, String key, LeaseOptions options, Duration pause,
            Outcomes outcomes, LongConsumer onGranted) throws InterruptedException {
        return run(locks, store, key, options, pause, outcomes, onGranted, span -> {});
    }

    /**
     * As {@link #run(LockProvider, FencedStore, String, LeaseOptions, Duration, Outcomes, LongConsumer)},
     * telling {@code leases} the span of each lease that was ever seen valid: granted when the
     * acquire returned, last seen valid when it was returned or just before the write (this
     * thread's name is the holder). A lease handed out already expired (its wait outlasted the TTL)
     * was never valid and has no span.
     */
    static StoredValue run(LockProvider locks, FencedStore store, String key, LeaseOptions options, Duration pause,
            Outcomes outcomes, LongConsumer onGranted, Consumer<LeaseSpan> leases) throws InterruptedException {
        Lease lease;
        try {
            lease = locks.acquire(key, options);
        } catch (LockUnavailableException e) {
            outcomes.failed(e);
            Thread.sleep(UNREACHABLE_PAUSE_MILLIS); // the server may be down: do not spin
            return null;
        }
        long granted = System.nanoTime();
        boolean validWhenGranted = lease.isValid();
        onGranted.accept(lease.token().value());
        try {
            if (!pause.isZero()) {
                Thread.sleep(pause.toMillis()); // work inside the critical section, or a simulated GC pause
            }
            long asked = System.nanoTime();
            if (lease.isValid()) {
                leases.accept(new LeaseSpan(Thread.currentThread().getName(), key, lease.token().value(), granted, asked));
            } else if (validWhenGranted) {
                leases.accept(new LeaseSpan(Thread.currentThread().getName(), key, lease.token().value(), granted,
                        granted));
            }
            StoredValue written = store.update(lease.token(), key, Counter::increment);
            outcomes.accepted(lease.token().value());
            return written;
        } catch (StaleTokenException e) {
            outcomes.rejected(e);
            return null;
        } catch (FencingException e) {
            outcomes.failed(e);
            return null;
        } finally {
            release(lease, outcomes);
        }
    }

    private static void release(Lease lease, Outcomes outcomes) {
        try {
            lease.release();
        } catch (LeaseLostException e) {
            outcomes.leaseLost();
        } catch (LockUnavailableException e) {
            outcomes.failed(e);
        }
    }
}
