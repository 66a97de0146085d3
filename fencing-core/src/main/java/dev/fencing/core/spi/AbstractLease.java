package dev.fencing.core.spi;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.internal.Checks;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease state machine shared by every provider: {@code ACTIVE → RELEASED} or
 * {@code ACTIVE → LOST → RELEASED}. A provider implements the two compare-and-act operations
 * on its server, {@link #doRenew} and {@link #doRelease}; validity, the deadline guard, the
 * watchdog and listener calls live here.
 *
 * <p>Validity is counted on the monotonic clock from {@code requestedAtNanos}, a reading taken
 * before the acquire request was sent, so the local view never outlasts the server's TTL.
 */
public abstract class AbstractLease implements Lease {

    private static final Logger LOG = LoggerFactory.getLogger(AbstractLease.class);

    private enum State { ACTIVE, LOST, RELEASED }

    private final FencingToken token;
    private final String ownerId;
    private final MonotonicClock clock;
    private final FencingListener listener;
    private final AtomicReference<State> state = new AtomicReference<>(State.ACTIVE);
    private volatile long deadlineNanos;
    private final long requestedAtNanos;
    /** Held while a renewal runs on the server and sets the deadline from it. */
    private final Object renewals = new Object();
    private volatile @Nullable ScheduledFuture<?> renewal;
    private volatile @Nullable Runnable renewalStopped;
    /** The watchdog renewing this lease, for the early warning's timer; null when not auto-renewed. */
    private volatile @Nullable LeaseWatchdog watchdog;
    /** The early warning's margin ({@link FencingListener#onRenewalsFailing}). */
    private volatile long warningMarginNanos;
    /** Watchdog renewals that failed (or were still in flight at a tick) since the last success. */
    private final java.util.concurrent.atomic.AtomicInteger failedRenewals = new java.util.concurrent.atomic.AtomicInteger();
    private volatile @Nullable Throwable lastRenewalFailure;
    /** Whether this stretch of failures was warned about already. */
    private final java.util.concurrent.atomic.AtomicBoolean warned = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile @Nullable ScheduledFuture<?> warning;

    /**
     * @param token the granted token
     * @param ownerId the owner id the lock is held under
     * @param requestedAtNanos the clock reading taken before the acquire request was sent
     * @param ttl the granted TTL
     */
    protected AbstractLease(FencingToken token, String ownerId, long requestedAtNanos, Duration ttl,
            MonotonicClock clock, FencingListener listener) {
        this.token = Checks.requireNonNull("token", token);
        this.ownerId = Checks.requireNonNull("ownerId", ownerId);
        this.clock = Checks.requireNonNull("clock", clock);
        this.listener = listener;
        this.deadlineNanos = requestedAtNanos + ttl.toNanos();
        this.requestedAtNanos = requestedAtNanos;
    }

    /**
     * How long a renewal to {@code ttl} keeps the lease valid, counted from before the renew
     * request; {@code ttl} itself unless the algorithm subtracts a margin (Redlock's clock drift).
     */
    protected Duration validityOf(Duration ttl) {
        return ttl;
    }

    /**
     * The local deadline the lease's validity is judged by: {@code deadlineNanos}, the last renewal's
     * {@link #validityOf} from before its request, unless the provider knows of an earlier end — a
     * server that can end the lock on its own schedule, as ZooKeeper ends a session. Called on every
     * {@link #isValid}, {@link #remaining} and {@link #requireValidFor}: must be cheap and must not block.
     * Return the earlier of the two readings (compare as {@code a - b < 0}, the clock may wrap).
     */
    protected long boundedDeadline(long deadlineNanos) {
        return deadlineNanos;
    }

    private long deadline() {
        return boundedDeadline(deadlineNanos);
    }

    /**
     * Extends the lock on the server to {@code ttl}, only if {@link #ownerId()} still holds it.
     *
     * @return false if another owner (or nobody) holds it
     */
    protected abstract boolean doRenew(Duration ttl);

    /**
     * Releases the lock on the server, only if {@link #ownerId()} still holds it, and frees
     * what the lease holds (a connection). Called exactly once.
     *
     * @return false if another owner (or nobody) held it
     */
    protected abstract boolean doRelease();

    @Override
    public final String resource() {
        return token.resource();
    }

    @Override
    public final FencingToken token() {
        return token;
    }

    @Override
    public final String ownerId() {
        return ownerId;
    }

    @Override
    public final Duration remaining() {
        if (state.get() != State.ACTIVE) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, deadline() - clock.nanoTime()));
    }

    @Override
    public final boolean isValid() {
        return state.get() == State.ACTIVE && deadline() - clock.nanoTime() > 0;
    }

    @Override
    public final FencingToken requireValidFor(Duration margin) {
        Checks.requireBetween("margin", margin, Duration.ZERO, LeaseOptions.MAX_TTL);
        State current = state.get();
        if (current == State.RELEASED) {
            throw new IllegalStateException("lease " + token + " was released; acquire a new one");
        }
        if (current == State.LOST) {
            throw LeaseLostException.of(token, "it was found lost earlier");
        }
        long left = deadline() - clock.nanoTime();
        // at the deadline itself the lease is no longer valid (isValid), whatever the margin
        if (left <= 0 || left < margin.toNanos()) {
            throw LeaseLostException.of(token, left <= 0
                    ? "it expired " + Duration.ofNanos(-left).toMillis() + " ms ago"
                    : "only " + Duration.ofNanos(left).toMillis() + " ms left, the side effect needs " + margin.toMillis() + " ms");
        }
        return token;
    }

    @Override
    public final void renew(Duration ttl) {
        Checks.requireBetween("ttl", ttl, LeaseOptions.MIN_TTL, LeaseOptions.MAX_TTL);
        State current = state.get();
        if (current == State.RELEASED) {
            throw new IllegalStateException("lease " + token + " was released; acquire a new one");
        }
        if (current == State.LOST) {
            throw LeaseLostException.of(token, "it was found lost earlier");
        }
        if (!renewOnServer(ttl)) {
            String reason = "renew found the lock no longer held by owner " + ownerId;
            markLost(reason, null);
            throw LeaseLostException.of(token, reason);
        }
    }

    /**
     * Releases the lease. The listener hears exactly one ending per lease: {@code onReleased} when
     * the lock was still held, {@code onLost} when the release finds it gone (unless the loss was
     * reported already), with the time the lease was valid for.
     */
    @Override
    public final void release() {
        State previous = state.getAndSet(State.RELEASED);
        if (previous == State.RELEASED) {
            throw new IllegalStateException("lease " + token + " was already released");
        }
        stopRenewal();
        boolean held;
        try {
            held = doRelease();
        } catch (RuntimeException | Error unclear) {
            // no clear answer (a silent server, a closed client): the lock lapses on its TTL at the
            // latest, and the lease must not end without its one event
            if (previous != State.LOST) {
                listener.onLost(this, "the release got no clear answer (" + unclear + "); the lock lapses on its"
                        + " TTL at the latest", unclear, heldUntilNow());
            }
            throw unclear;
        }
        if (previous == State.LOST) { // the loss was reported when it was found: no second ending
            if (!held) {
                throw LeaseLostException.of(token, "it was found lost before the release");
            }
            return; // the server still had it (a renewal that failed without losing it): released now
        }
        if (!held) {
            String reason = "at release the lock was no longer held by owner " + ownerId + " (it expired or was taken over)";
            listener.onLost(this, reason, null, heldUntilNow());
            throw LeaseLostException.of(token, reason);
        }
        listener.onReleased(this);
    }

    /** From the grant request to now, or to the local deadline if that passed first: how long the lease was valid. */
    private Duration heldUntilNow() {
        return Duration.ofNanos(Math.max(0, Math.min(clock.nanoTime(), deadline()) - requestedAtNanos));
    }

    @Override
    public final void close() {
        if (state.get() != State.RELEASED) {
            release();
        }
    }

    /** Starts auto-renewal on {@code watchdog}; called by the provider once, after the grant. */
    public final void startRenewal(LeaseWatchdog watchdog, Duration ttl) {
        startRenewal(watchdog, ttl, () -> {}, this, ttl.dividedBy(3));
    }

    /**
     * As {@link #startRenewal(LeaseWatchdog, Duration)}; {@code whenStopped} runs once renewal
     * stops for good; {@code group} (the provider) shares one cap of renewals in flight;
     * {@code warningMargin} is when failing renewals are warned about.
     */
    final void startRenewal(LeaseWatchdog watchdog, Duration ttl, Runnable whenStopped, Object group,
            Duration warningMargin) {
        renewalStopped = whenStopped;
        this.warningMarginNanos = warningMargin.toNanos();
        this.watchdog = watchdog;
        renewal = watchdog.watch(this, ttl, group);
        armWarning();
        if (state.get() != State.ACTIVE) {
            stopRenewal();
        }
    }

    /**
     * Sets the early warning's timer to the moment the lease has only the margin left; it warns
     * then if a renewal failed since the last success (a renewal that fails later, inside the
     * margin, warns at once).
     */
    private void armWarning() {
        LeaseWatchdog current = watchdog;
        if (current == null) {
            return;
        }
        ScheduledFuture<?> previous = warning;
        if (previous != null) {
            previous.cancel(false);
        }
        warning = current.schedule(this::warnIfFailing, deadline() - warningMarginNanos - clock.nanoTime());
    }

    /** Tells the listener once per stretch of failures, when renewals failed and the margin is reached. */
    private void warnIfFailing() {
        long left = deadline() - clock.nanoTime();
        if (state.get() == State.ACTIVE && failedRenewals.get() > 0 && left > 0 && left - warningMarginNanos <= 0
                && warned.compareAndSet(false, true)) {
            listener.onRenewalsFailing(this, Duration.ofNanos(left), lastRenewalFailure);
        }
    }

    /** A watchdog renewal failed without losing the lease, or was still in flight at a tick. */
    private void renewalFailed(@Nullable Throwable failure) {
        lastRenewalFailure = failure;
        failedRenewals.incrementAndGet();
        warnIfFailing();
    }

    /**
     * Stops auto-renewal without releasing: the lease stays valid until its local deadline and
     * the lock lapses on the server's TTL. For a provider's {@code close()}.
     */
    final void stopRenewalAndLapse() {
        stopRenewal();
    }

    /**
     * Marks the lease lost (if it is active), stops renewal and tells the listener. For providers
     * that notice a loss themselves, such as a dropped connection.
     */
    protected final void markLost(String reason, @Nullable Throwable cause) {
        if (state.compareAndSet(State.ACTIVE, State.LOST)) {
            stopRenewal();
            LOG.warn("lease {} was lost while held: {}; a write made with its token is refused once a newer holder has"
                    + " written", token, reason);
            listener.onLost(this, reason, cause, heldUntilNow());
        }
    }

    /**
     * Whether the lease's local deadline has passed, whatever its state (during {@link #doRelease}
     * the state is already released): for a provider whose server cannot tell that the lease ran
     * out, so that a renewal or release past it reports the loss instead of bringing the lock back.
     */
    protected final boolean pastDeadline() {
        return deadline() - clock.nanoTime() <= 0;
    }

    /** Whether the lease was found lost (not merely expired by the local clock). */
    protected final boolean isLost() {
        return state.get() == State.LOST;
    }

    /** Whether the watchdog's last renewal failed (only the first failure of a streak is a WARN line). */
    private volatile boolean renewalsFailing;

    /** One watchdog renewal, on a renewal thread; never throws. */
    final void renewFromWatchdog(Duration ttl) {
        if (state.get() != State.ACTIVE) {
            stopRenewal();
            return;
        }
        try {
            if (!renewOnServer(ttl)) {
                markLost("the watchdog's renewal found the lock no longer held by owner " + ownerId, null);
            } else if (renewalsFailing) {
                renewalsFailing = false;
                LOG.info("renewal of {} succeeded again", token);
            }
        } catch (RuntimeException e) {
            if (deadline() - clock.nanoTime() <= 0) {
                markLost("the watchdog could not renew it before it expired", e);
            } else {
                if (renewalsFailing) { // one line per streak: a cut or a pause fails every tick alike
                    LOG.debug("renewal of {} failed again, retrying on the next tick: {}", token, e.toString());
                } else {
                    renewalsFailing = true;
                    LOG.warn("renewal of {} failed, retrying on each tick until it succeeds or the lease expires"
                            + " (further failures at DEBUG): {}", token, e.toString());
                }
                renewalFailed(e);
            }
        } catch (Error e) {
            LOG.error("renewal of {} threw an error; the lease is marked lost", token, e);
            markLost("the watchdog's renewal threw " + e, e);
        }
    }

    /** A watchdog tick found the previous renewal still waiting for its server. */
    final void renewalStillInFlight() {
        if (state.get() == State.ACTIVE && deadline() - clock.nanoTime() <= 0) {
            markLost("the watchdog's renewal did not answer before the lease expired", null);
        } else {
            renewalFailed(null);
        }
    }

    /**
     * One renewal at a time per lease: the server keeps the TTL of the renewal it ran last, so
     * the local deadline must come from that same renewal — two at once (the watchdog's and the
     * caller's, or two callers') could otherwise leave a longer local deadline over a shorter
     * server TTL.
     */
    private boolean renewOnServer(Duration ttl) {
        synchronized (renewals) {
            long requestedAt = clock.nanoTime();
            if (!doRenew(ttl)) {
                return false;
            }
            deadlineNanos = requestedAt + validityOf(ttl).toNanos();
            if (failedRenewals.get() > 0 || warned.get()) {
                failedRenewals.set(0);
                lastRenewalFailure = null;
                warned.set(false);
            }
            armWarning();
        }
        listener.onRenewed(this);
        return true;
    }

    private void stopRenewal() {
        ScheduledFuture<?> pendingWarning = warning;
        if (pendingWarning != null) {
            pendingWarning.cancel(false);
        }
        ScheduledFuture<?> current = renewal;
        if (current != null) {
            current.cancel(false);
            Runnable stopped = renewalStopped;
            if (stopped != null) {
                renewalStopped = null;
                stopped.run();
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + token + ", owner " + ownerId + ", " + state.get()
                + ", " + remaining().toMillis() + " ms left]";
    }
}
