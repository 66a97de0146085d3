// Over 500 lines: the async wait loop (AsyncWait) runs on the provider's private state, as the blocking one does.
package dev.fencing.core.spi;

import dev.fencing.core.AcquireOutcome;
import dev.fencing.core.Backoff;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.ProviderClosedException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.internal.SafeListener;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The parts every provider shares, written once: argument checks, the listener, the watchdog,
 * and the wait loop of {@link #acquire} — attempt, then sleep for the backoff delay or until a
 * {@link ReleaseSignals release signal}, until the wait timeout — and its async form.
 *
 * <p>A provider implements one acquisition attempt, {@link #attempt}, and signals
 * {@link #releaseSignals()} when it learns of a release.
 */
public abstract class AbstractLockProvider implements LockProvider {

    private final MonotonicClock clock;
    private final FencingListener listener;
    private final LeaseWatchdog watchdog;
    /** The margin of the listener's early warning; null for a third of each lease's TTL. */
    private @Nullable Duration expiryWarning;
    private final ThreadPoolExecutor asyncAttempts;
    private final ScheduledThreadPoolExecutor asyncTimers;
    private final Set<AsyncWait> asyncWaits = ConcurrentHashMap.newKeySet();
    private final Set<AbstractLease> renewing = ConcurrentHashMap.newKeySet();
    private final ReleaseSignals releaseSignals = new ReleaseSignals();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param settings the listener, clock and watchdog of the provider's builder
     * @param asyncThreadName the name of the daemon threads that run the attempts of {@link #acquireAsync}
     */
    protected AbstractLockProvider(ProviderBuilder<?> settings, String asyncThreadName) {
        this(settings.clock, settings.listener, settings.watchdog, asyncThreadName);
        this.expiryWarning = settings.expiryWarning;
    }

    /**
     * @param clock the monotonic clock for lease validity and wait deadlines
     * @param listener events go here; {@code null} for none
     * @param watchdog renews leases acquired with {@code autoRenew}
     * @param asyncThreadName the name of the daemon threads that run the attempts of {@link #acquireAsync};
     *     the provider owns those threads and ends them on {@link #close()}
     */
    protected AbstractLockProvider(MonotonicClock clock, FencingListener listener, LeaseWatchdog watchdog,
            String asyncThreadName) {
        this.clock = Checks.requireNonNull("clock", clock);
        this.listener = SafeListener.of(listener);
        this.watchdog = Checks.requireNonNull("watchdog", watchdog);
        Checks.requireName("asyncThreadName", asyncThreadName);
        this.asyncAttempts = new ThreadPoolExecutor(ASYNC_ATTEMPT_THREADS, ASYNC_ATTEMPT_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), daemons(asyncThreadName));
        this.asyncAttempts.allowCoreThreadTimeOut(true);
        this.asyncTimers = new ScheduledThreadPoolExecutor(1, daemons(asyncThreadName + "-timer"));
        this.asyncTimers.setRemoveOnCancelPolicy(true);
    }

    /**
     * One attempt to take the lock on {@code resource} for {@code options.ttl()} under a fresh
     * owner id, returning the lease with its token, or empty if another owner holds it. The
     * arguments are already validated.
     *
     * <p>If the calling thread is interrupted while the attempt waits for its server, either
     * finish the attempt (when that is bounded and short) or give back whatever it may have taken
     * and return empty — and in both cases keep the thread's interrupt status set: a waiting
     * acquire then returns the lease it got, or throws {@link InterruptedException}. Never leave a
     * lock behind that nobody holds a lease for.
     *
     * @param requestedAtNanos the clock reading to count the lease's validity from
     */
    protected abstract Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos);

    /**
     * {@link #attempt(String, LeaseOptions, long)} knowing when the caller's wait ends: a provider
     * whose attempt itself may wait (for a pooled connection) bounds that wait by
     * {@code deadlineNanos}. For {@code tryAcquire} the deadline is the wait timeout from now.
     * By default ignores the deadline.
     *
     * @param deadlineNanos the clock reading at which the caller's wait timeout runs out
     */
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos,
            long deadlineNanos) {
        return attempt(resource, options, requestedAtNanos);
    }

    /**
     * Starts delivering release notices of {@code resource} to {@link #releaseSignals()}, for an
     * acquire that found the lock held and is about to wait; the wait loop closes the returned
     * watch when it stops waiting. For a provider whose notices cost something per interested
     * process (a Redis subscription), so that nobody pays for them while nobody waits.
     *
     * <p>Return only once notices flow, or after giving up on them: the loop attempts once more
     * right after this call and then relies on the notices, with the backoff as its safety net.
     * Must not throw; on failure return {@link ReleaseWatch#NONE} and let the backoff do the
     * work. By default returns {@link ReleaseWatch#NONE}.
     */
    protected ReleaseWatch watchReleases(String resource) {
        return ReleaseWatch.NONE;
    }

    /**
     * The backoff between the attempts of a waiting acquire: {@link LeaseOptions#backoff()} unless
     * a provider's algorithm needs its own (Redlock retries with full jitter).
     */
    protected Backoff backoffFor(LeaseOptions options) {
        return options.backoff();
    }

    @Override
    public final Optional<Lease> tryAcquire(String resource, LeaseOptions options) {
        checkArguments(resource, options);
        long now = clock.nanoTime();
        Optional<Lease> lease;
        try {
            lease = granted(attempt(resource, options, now, now + options.waitTimeout().toNanos()), options);
        } catch (RuntimeException e) {
            acquireFinished(resource, now, e);
            throw e;
        }
        acquireFinished(resource, now, lease.isPresent() ? AcquireOutcome.GRANTED
                : Thread.currentThread().isInterrupted() ? AcquireOutcome.INTERRUPTED : AcquireOutcome.HELD);
        return lease;
    }

    @Override
    public final Lease acquire(String resource, LeaseOptions options) throws InterruptedException {
        checkArguments(resource, options);
        long now = clock.nanoTime();
        try {
            Lease lease = waitFor(resource, options, () -> false);
            acquireFinished(resource, now, AcquireOutcome.GRANTED);
            return lease;
        } catch (InterruptedException | RuntimeException e) {
            acquireFinished(resource, now, e);
            throw e;
        }
    }

    private void acquireFinished(String resource, long startedNanos, Throwable failure) {
        if (listener != FencingListener.NONE) {
            acquireFinished(resource, startedNanos, failure instanceof InterruptedException
                    ? AcquireOutcome.INTERRUPTED
                    : failure instanceof LockUnavailableException unavailable
                            ? (unavailable.isTimeout() ? AcquireOutcome.TIMED_OUT : AcquireOutcome.UNAVAILABLE)
                            : AcquireOutcome.FAILED);
        }
    }

    private void acquireFinished(String resource, long startedNanos, AcquireOutcome outcome) {
        if (listener != FencingListener.NONE) {
            listener.onAcquireFinished(resource, outcome, Duration.ofNanos(clock.nanoTime() - startedNanos));
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Event-driven: a pending wait holds no thread between its attempts. Attempts run on at
     * most {@value #ASYNC_ATTEMPT_THREADS} threads of this provider (queued beyond that), the
     * pause between them is a timer, and a release signal or the timer, whichever comes first,
     * queues the next attempt. Closing the provider fails pending futures with
     * {@link IllegalStateException}.
     */
    @Override
    public final CompletableFuture<Lease> acquireAsync(String resource, LeaseOptions options) {
        checkArguments(resource, options);
        long now = clock.nanoTime();
        AsyncWait wait = new AsyncWait(resource, options);
        asyncWaits.add(wait);
        wait.future.whenComplete((lease, failure) -> {
            wait.wake();
            if (failure == null) {
                acquireFinished(resource, now, AcquireOutcome.GRANTED);
            } else {
                acquireFinished(resource, now, failure instanceof java.util.concurrent.CompletionException
                        && failure.getCause() != null ? failure.getCause() : failure);
            }
        });
        if (closed.get()) {
            wait.future.completeExceptionally(new ProviderClosedException(getClass().getSimpleName() + " is closed"));
        }
        wait.submit();
        return wait.future;
    }

    /** The threads that run the attempts of pending {@link #acquireAsync} waits, per provider. */
    public static final int ASYNC_ATTEMPT_THREADS = 4;

    /** One pending {@link #acquireAsync}: the state of the wait loop between attempts. */
    private final class AsyncWait implements Runnable {
        final CompletableFuture<Lease> future = new CompletableFuture<>();
        private final String resource;
        private final LeaseOptions options;
        private final long deadline;
        private final ReleaseSignals.Registration registration;
        private final AtomicBoolean sleeping = new AtomicBoolean();
        private final Object lock = new Object(); // one attempt at a time
        private volatile @Nullable ScheduledFuture<?> timer;
        private @Nullable ReleaseWatch watch;
        private boolean finished;
        private int waits;

        AsyncWait(String resource, LeaseOptions options) {
            this.resource = resource;
            this.options = options;
            this.deadline = clock.nanoTime() + options.waitTimeout().toNanos();
            this.registration = releaseSignals.register(resource);
        }

        void submit() {
            try {
                asyncAttempts.execute(this);
            } catch (RejectedExecutionException e) {
                future.completeExceptionally(new ProviderClosedException(
                        AbstractLockProvider.this.getClass().getSimpleName() + " is closed", e));
                run(); // cleans up on this thread: the future is done
            }
        }

        /** The timer or a release signal: queue the next attempt, once. */
        void wake() {
            if (sleeping.compareAndSet(true, false)) {
                ScheduledFuture<?> pending = timer;
                if (pending != null) {
                    pending.cancel(false);
                }
                submit();
            } else if (future.isDone()) {
                submit(); // an attempt in progress finishes; this run then only cleans up
            }
        }

        @Override
        public void run() {
            synchronized (lock) {
                if (finished) {
                    return;
                }
                try {
                    step();
                } catch (RuntimeException | Error e) {
                    sleeping.set(false);
                    future.completeExceptionally(e);
                }
                if (future.isDone() && !sleeping.get()) {
                    finish();
                }
            }
        }

        private void step() {
            if (future.isDone()) {
                return;
            }
            Optional<AbstractLease> lease = attempt(resource, options, clock.nanoTime(), deadline);
            granted(lease, options);
            if (lease.isPresent()) {
                if (!future.complete(lease.get())) {
                    unclaimed(lease.get(), options.ttl()); // cancelled meanwhile: nobody will use this lease
                }
                return;
            }
            long left = deadline - clock.nanoTime();
            if (left <= 0) {
                future.completeExceptionally(LockUnavailableException.timedOut(resource, options.waitTimeout()));
                return;
            }
            if (watch == null) {
                watch = watchReleases(resource);
                if (watch != ReleaseWatch.NONE) {
                    submit(); // as in acquire: a release before the watch started was not seen
                    return;
                }
            }
            long delay = Math.min(left, backoffFor(options).delay(waits++).toNanos());
            sleeping.set(true);
            timer = asyncTimers.schedule(this::wake, delay, TimeUnit.NANOSECONDS);
            registration.onNextSignal(this::wake);
            if (future.isDone()) {
                wake(); // cancelled while arming
            }
        }

        private void finish() {
            if (finished) {
                return;
            }
            finished = true;
            ScheduledFuture<?> pending = timer;
            if (pending != null) {
                pending.cancel(false);
            }
            registration.close();
            asyncWaits.remove(this);
            if (watch != null) {
                try {
                    watch.close();
                } catch (RuntimeException e) {
                    // the provider's connection may be closed already; the watch goes with it
                }
            }
        }
    }

    private void unclaimed(AbstractLease lease, Duration ttl) {
        try {
            giveBackUnclaimed(lease, ttl);
        } catch (RuntimeException e) {
            // the hook must not throw; if it does, the lock expires with its TTL
        }
    }

    /**
     * Gives back the lock of a lease that was granted but that nobody will ever hold: its
     * {@link #acquireAsync} future was cancelled (or failed by {@link #close()}) while the grant
     * was on its way. Called on a provider thread; must not throw. By default closes the lease —
     * one release, and if that fails the lock stays until its TTL ends. A provider whose release
     * can fail for a while (a connection that is down) overrides it to keep giving the lock back,
     * as it does for an acquire whose reply was lost.
     *
     * @param ttl the TTL the lock was granted for: after it, the lock is gone anyway
     */
    protected void giveBackUnclaimed(AbstractLease lease, Duration ttl) {
        lease.close();
    }

    private Lease waitFor(String resource, LeaseOptions options, BooleanSupplier abandoned)
            throws InterruptedException {
        long deadline = clock.nanoTime() + options.waitTimeout().toNanos();
        ReleaseWatch watch = null;
        try (ReleaseSignals.Registration registration = releaseSignals.register(resource)) {
            for (int waits = 0; ; ) {
                throwIfInterrupted(resource);
                if (closed.get()) {
                    // closed while waiting: no attempt after close, or its lease would outlive the provider
                    throw new ProviderClosedException(getClass().getSimpleName() + " was closed while waiting for lock '"
                            + resource + "'");
                }
                if (abandoned.getAsBoolean()) {
                    throw new CancellationException("acquire of lock '" + resource + "' was cancelled");
                }
                Optional<AbstractLease> attempt;
                try {
                    attempt = attempt(resource, options, clock.nanoTime(), deadline);
                } catch (RuntimeException failed) {
                    if (closed.get()) {
                        // the provider closed under the attempt (its connections ended): that, not the server
                        throw new ProviderClosedException(getClass().getSimpleName() + " was closed while waiting for"
                                + " lock '" + resource + "'", failed);
                    }
                    throw failed;
                }
                if (attempt.isPresent() && closed.get()) {
                    // granted while the provider closed: nobody may hold a lock of a closed provider
                    unclaimed(attempt.get(), options.ttl());
                    throw new ProviderClosedException(getClass().getSimpleName() + " was closed while waiting for"
                            + " lock '" + resource + "'");
                }
                Optional<Lease> lease = granted(attempt, options);
                if (lease.isPresent()) {
                    return lease.get();
                }
                throwIfInterrupted(resource); // an attempt interrupted while it waited returns empty
                long left = deadline - clock.nanoTime();
                if (left <= 0) {
                    // a zero wait timeout ends here after exactly one attempt, having watched nothing
                    throw LockUnavailableException.timedOut(resource, options.waitTimeout());
                }
                if (watch == null) {
                    watch = watchReleases(resource);
                    if (watch != ReleaseWatch.NONE) {
                        // notices flow from here on, but a release between the failed attempt
                        // and now was not seen: attempt once more before sleeping
                        continue;
                    }
                }
                long delay = Math.min(left, backoffFor(options).delay(waits++).toNanos());
                throwIfInterrupted(resource);
                try {
                    registration.await(delay);
                } catch (InterruptedException e) {
                    throw interruptedWaiting(resource);
                }
            }
        } finally {
            if (watch != null) {
                watch.close();
            }
        }
    }

    private static void throwIfInterrupted(String resource) throws InterruptedException {
        if (Thread.interrupted()) {
            throw interruptedWaiting(resource);
        }
    }

    private static InterruptedException interruptedWaiting(String resource) {
        return new InterruptedException("interrupted while waiting for lock '" + resource + "'");
    }

    private Optional<Lease> granted(Optional<AbstractLease> attempt, LeaseOptions options) {
        attempt.ifPresent(lease -> {
            if (options.autoRenew()) {
                renewing.add(lease);
                lease.startRenewal(watchdog, options.ttl(), () -> renewing.remove(lease), this,
                        expiryWarning == null ? options.ttl().dividedBy(3) : expiryWarning);
                if (closed.get()) {
                    lease.stopRenewalAndLapse(); // closed during the attempt: no renewal outlives close()
                }
            }
            listener.onGranted(lease);
        });
        return attempt.map(Lease.class::cast);
    }

    private void checkArguments(String resource, LeaseOptions options) {
        if (closed.get()) {
            throw new ProviderClosedException(getClass().getSimpleName() + " is closed");
        }
        Checks.requireName("resource", resource);
        Checks.requireNonNull("options", options);
        checkResource(resource);
    }

    /**
     * Provider-specific checks of a resource name, beyond the toolkit's common rules; throws
     * {@link IllegalArgumentException}. Does nothing by default.
     */
    protected void checkResource(String resource) {}

    /**
     * Marks the provider closed, stops the renewal of every lease it granted (they stay valid
     * until their local deadline and lapse on the server's TTL; none is released), fails pending
     * {@link #acquireAsync} futures, calls {@link #doClose()} once, then ends the async threads.
     * Idempotent: a second call does nothing.
     */
    @Override
    public final void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            for (AbstractLease lease : List.copyOf(renewing)) {
                lease.stopRenewalAndLapse();
            }
            IllegalStateException closing = new ProviderClosedException(getClass().getSimpleName()
                    + " was closed while waiting");
            for (AsyncWait wait : List.copyOf(asyncWaits)) {
                wait.future.completeExceptionally(closing);
            }
            doClose();
        } finally {
            asyncTimers.shutdownNow();
            asyncAttempts.shutdown(); // queued clean-ups of the failed waits still run
        }
    }

    /** Frees the provider's connections and threads (the async wait threads are the base class's). */
    protected abstract void doClose();

    /** Whether {@link #close()} was called. */
    protected final boolean isClosed() {
        return closed.get();
    }

    private static ThreadFactory daemons(String threadName) {
        return runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Signal these when a release becomes known, to wake waiters early. */
    protected final ReleaseSignals releaseSignals() {
        return releaseSignals;
    }

    /** The provider's clock. */
    protected final MonotonicClock clock() {
        return clock;
    }

    /** The provider's listener, already made safe. */
    protected final FencingListener listener() {
        return listener;
    }
}
