package dev.fencing.core.spi;

import dev.fencing.core.Backoff;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.internal.SafeListener;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

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
    private final ExecutorService asyncExecutor;
    private final ReleaseSignals releaseSignals = new ReleaseSignals();
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param settings the listener, clock and watchdog of the provider's builder
     * @param asyncThreadName the name of the daemon threads that run the waits of {@link #acquireAsync}
     */
    protected AbstractLockProvider(ProviderBuilder<?> settings, String asyncThreadName) {
        this(settings.clock, settings.listener, settings.watchdog, asyncThreadName);
    }

    /**
     * @param clock the monotonic clock for lease validity and wait deadlines
     * @param listener events go here; {@code null} for none
     * @param watchdog renews leases acquired with {@code autoRenew}
     * @param asyncThreadName the name of the daemon threads that run the waits of {@link #acquireAsync};
     *     the provider owns that pool and shuts it down on {@link #close()}
     */
    protected AbstractLockProvider(MonotonicClock clock, FencingListener listener, LeaseWatchdog watchdog,
            String asyncThreadName) {
        this.clock = Checks.requireNonNull("clock", clock);
        this.listener = SafeListener.of(listener);
        this.watchdog = Checks.requireNonNull("watchdog", watchdog);
        this.asyncExecutor = newAsyncExecutor(Checks.requireName("asyncThreadName", asyncThreadName));
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
        return granted(attempt(resource, options, clock.nanoTime()), options);
    }

    @Override
    public final Lease acquire(String resource, LeaseOptions options) throws InterruptedException {
        checkArguments(resource, options);
        return waitFor(resource, options, () -> false);
    }

    @Override
    public final CompletableFuture<Lease> acquireAsync(String resource, LeaseOptions options) {
        checkArguments(resource, options);
        CompletableFuture<Lease> future = new CompletableFuture<>();
        asyncExecutor.execute(() -> {
            try {
                Lease lease = waitFor(resource, options, future::isDone);
                if (!future.complete(lease)) {
                    lease.close();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                future.completeExceptionally(e);
            } catch (RuntimeException | Error e) {
                future.completeExceptionally(e);
            }
        });
        return future;
    }

    private Lease waitFor(String resource, LeaseOptions options, BooleanSupplier abandoned)
            throws InterruptedException {
        long deadline = clock.nanoTime() + options.waitTimeout().toNanos();
        ReleaseWatch watch = null;
        try (ReleaseSignals.Registration registration = releaseSignals.register(resource)) {
            for (int waits = 0; ; ) {
                throwIfInterrupted(resource);
                if (abandoned.getAsBoolean()) {
                    throw new CancellationException("acquire of lock '" + resource + "' was cancelled");
                }
                Optional<Lease> lease = granted(attempt(resource, options, clock.nanoTime()), options);
                if (lease.isPresent()) {
                    return lease.get();
                }
                if (watch == null) {
                    watch = watchReleases(resource);
                    if (watch != ReleaseWatch.NONE) {
                        // notices flow from here on, but a release between the failed attempt
                        // and now was not seen: attempt once more before sleeping
                        continue;
                    }
                }
                long left = deadline - clock.nanoTime();
                if (left <= 0) {
                    throw LockUnavailableException.timedOut(resource, options.waitTimeout());
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
                lease.startRenewal(watchdog, options.ttl());
            }
            listener.onGranted(lease);
        });
        return attempt.map(Lease.class::cast);
    }

    private void checkArguments(String resource, LeaseOptions options) {
        if (closed.get()) {
            throw new IllegalStateException(getClass().getSimpleName() + " is closed");
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
     * Marks the provider closed, calls {@link #doClose()} once, then stops the async wait threads.
     * Idempotent: a second call does nothing.
     */
    @Override
    public final void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            doClose();
        } finally {
            asyncExecutor.shutdownNow();
        }
    }

    /** Frees the provider's connections and threads (the async wait threads are the base class's). */
    protected abstract void doClose();

    /** Whether {@link #close()} was called. */
    protected final boolean isClosed() {
        return closed.get();
    }

    private static ExecutorService newAsyncExecutor(String threadName) {
        return Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
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
