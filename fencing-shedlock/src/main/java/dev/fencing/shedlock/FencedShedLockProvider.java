package dev.fencing.shedlock;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} backed by any of the toolkit's
 * lock providers (Redis, Postgres advisory locks, Redlock, etcd, ZooKeeper), so that a
 * scheduled task runs under a lease with a fencing token: {@link FencedLocks#currentToken()}
 * inside the task hands it to a fenced store. ShedLock alone cannot stop an execution that
 * outlives {@code lockAtMostFor} (a GC pause, a slow call) from writing after the next execution
 * started elsewhere; with the token, the store refuses that late write.
 *
 * <h2>Mapping</h2>
 * <ul>
 *   <li>{@code lock}: one {@code tryAcquire} of the lock named by {@code @SchedulerLock(name)},
 *       with the lease's TTL {@code lockAtMostFor} — ShedLock skips the execution when the lock
 *       is held elsewhere, and so does this provider (empty), without waiting.
 *   <li>{@code unlock}: releases the lease, or — if {@code lockAtLeastFor} has not passed since
 *       the lock was asked for — releases it when it has, on a timer of this provider. If the
 *       process dies first, the lease lapses with its TTL ({@code lockAtMostFor}), which is
 *       never shorter.
 *   <li>{@code extend} ({@code LockExtender}): renews the lease to the new {@code lockAtMostFor};
 *       empty if the lease was lost meanwhile. It is an {@link ExtensibleLockProvider}, so ShedLock's
 *       {@code KeepAliveLockProvider} can wrap it and keep a long task's lease alive.
 * </ul>
 * A lock server that cannot be reached surfaces as the provider's
 * {@link dev.fencing.core.LockUnavailableException}, which ShedLock propagates to the scheduler.
 *
 * <p>Thread-safe. {@link #close()} stops the timer of pending {@code lockAtLeastFor} releases,
 * releasing those leases at once; it does not close the toolkit provider, which the caller owns.
 */
public final class FencedShedLockProvider implements ExtensibleLockProvider, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FencedShedLockProvider.class);

    private final LockProvider locks;
    private final ScheduledThreadPoolExecutor delayedReleases;

    private FencedShedLockProvider(LockProvider locks) {
        this.locks = locks;
        this.delayedReleases = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "fencing-shedlock-release");
            thread.setDaemon(true);
            return thread;
        });
        this.delayedReleases.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** A ShedLock provider over {@code locks}, which the caller keeps and closes. */
    public static FencedShedLockProvider create(LockProvider locks) {
        return new FencedShedLockProvider(Checks.requireNonNull("locks", locks));
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Checks.requireNonNull("configuration", configuration);
        Duration atMost = configuration.getLockAtMostFor();
        if (atMost.compareTo(LeaseOptions.MIN_TTL) < 0 || atMost.compareTo(LeaseOptions.MAX_TTL) > 0) {
            throw new IllegalArgumentException("lockAtMostFor of lock '" + configuration.getName() + "' must be between "
                    + LeaseOptions.MIN_TTL + " and " + LeaseOptions.MAX_TTL + " (it is the lease's TTL), got " + atMost);
        }
        Optional<Lease> lease = locks.tryAcquire(configuration.getName(), LeaseOptions.ofTtl(atMost));
        lease.ifPresent(FencedLocks::push);
        return lease.map(held -> new FencedSimpleLock(held, configuration.getLockAtLeastUntil()));
    }

    /** Releases the leases still waiting for their {@code lockAtLeastFor} now, and stops the timer. */
    @Override
    public void close() {
        for (Runnable pending : delayedReleases.shutdownNow()) {
            pending.run();
        }
    }

    private void release(Lease lease) {
        try {
            lease.close();
        } catch (RuntimeException e) {
            // lost meanwhile (expired or taken over): the task's writes were fenced by its token
            LOG.warn("ShedLock lock '{}' was no longer held at its release: {}", lease.resource(), e.getMessage());
        }
    }

    /** One held lock: its lease, and when it may be released at the earliest. */
    private final class FencedSimpleLock implements SimpleLock {
        private final Lease lease;
        private final Instant notBefore;
        private final AtomicBoolean done = new AtomicBoolean();

        FencedSimpleLock(Lease lease, Instant notBefore) {
            this.lease = lease;
            this.notBefore = notBefore;
        }

        @Override
        public void unlock() {
            if (!done.compareAndSet(false, true)) {
                throw new IllegalStateException("ShedLock lock '" + lease.resource() + "' was already unlocked or extended");
            }
            FencedLocks.remove(lease);
            long delayMillis = Duration.between(Instant.now(), notBefore).toMillis();
            if (delayMillis <= 0) {
                release(lease);
                return;
            }
            try {
                delayedReleases.schedule(() -> release(lease), delayMillis, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                release(lease); // closed: nothing will wait for lockAtLeastFor
            }
        }

        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            Checks.requireNonNull("lockAtMostFor", lockAtMostFor);
            Checks.requireNonNull("lockAtLeastFor", lockAtLeastFor);
            if (!done.compareAndSet(false, true)) {
                throw new IllegalStateException("ShedLock lock '" + lease.resource() + "' was already unlocked or extended");
            }
            try {
                lease.renew(lockAtMostFor);
            } catch (RuntimeException e) {
                FencedLocks.remove(lease);
                return Optional.empty();
            }
            return Optional.of(new FencedSimpleLock(lease, Instant.now().plus(lockAtLeastFor)));
        }
    }
}
