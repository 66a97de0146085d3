package dev.fencing.core.leader;

import dev.fencing.core.Backoff;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.ProviderClosedException;
import dev.fencing.core.internal.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate for leadership of a lock: while started, it campaigns for the lock through
 * {@link LockProvider#acquireAsync}, holds it with an auto-renewed lease for as long as it can, and
 * campaigns again when the lease is lost. Each lease is a {@link Term}; its token is the term's
 * epoch.
 *
 * <p>{@link #isLeader()} is true only while the term's lease is valid ({@link Lease#isValid()}), so
 * while the provider's assumptions hold two candidates never both see it true at once. A process
 * paused right after that check cannot notice its own pause: pass {@link #currentEpoch()} with every
 * write, so that a fenced store refuses the paused ex-leader once the next leader wrote. A term
 * ends when its lease is lost ({@link RevocationReason#LOST}), on {@link #stop()}
 * ({@link RevocationReason#STOPPED}, the lease released), or with the process (the lease expires).
 *
 * <p>Thread-safe; no thread waits per candidate. How a term ends, the threads and the callbacks are
 * in {@code docs/leader-election.md}.
 */
public final class Leadership implements AutoCloseable {

    /** The shortest TTL: 50 ms, so that a renewal every {@code ttl / 3} has time for a round trip. */
    public static final Duration MIN_TTL = Duration.ofMillis(50);

    private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);
    /** How long one campaign waits before it is renewed; waiting holds no thread. */
    private static final Duration CAMPAIGN_WAIT = Duration.ofMinutes(1);

    private enum State { NEW, RUNNING, STOPPED }

    private final LockProvider provider;
    private final String lockName;
    private final LeaseOptions leaseOptions;
    private final Backoff reelectionBackoff;
    private final LeadershipListener listener;
    private final Clock wallClock;
    private final long checkEveryNanos;
    private final SerialEvents events = new SerialEvents();

    private final Object lock = new Object();
    private State state = State.NEW;
    private volatile @Nullable Term term;
    private @Nullable CompletableFuture<Lease> campaign;
    private @Nullable ScheduledFuture<?> timer;
    private boolean stopRequested;
    private final CompletableFuture<@Nullable Void> stopped = new CompletableFuture<>();
    private int failures;

    private Leadership(Builder builder) {
        this.provider = builder.provider;
        this.lockName = builder.lockName;
        this.leaseOptions = LeaseOptions.builder().ttl(builder.ttl).waitTimeout(CAMPAIGN_WAIT).autoRenew(true)
                .backoff(builder.pollBackoff).build();
        this.reelectionBackoff = builder.reelectionBackoff;
        this.listener = LeadershipListener.all(new LoggingLeadershipListener(builder.lockName, builder.ttl), builder.listener);
        this.wallClock = builder.wallClock;
        this.checkEveryNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(5), builder.ttl.toNanos() / 10);
    }

    /**
     * A builder for a candidate for {@code lockName} on {@code provider}.
     *
     * @throws IllegalArgumentException if {@code provider} is null or {@code lockName} is not a
     *     valid resource name (1 to 256 characters, no control characters)
     */
    public static Builder builder(LockProvider provider, String lockName) {
        return new Builder(Checks.requireNonNull("provider", provider), Checks.requireName("lock name", lockName));
    }

    /**
     * Starts campaigning; returns at once. The listener hears {@code onElected} when this candidate
     * wins.
     *
     * @throws IllegalStateException if already started or stopped (a leadership runs once), or if
     *     the provider is closed
     * @throws IllegalArgumentException if the provider refuses the lock name
     */
    public void start() {
        synchronized (lock) {
            if (state != State.NEW) {
                throw new IllegalStateException("leadership of '" + lockName + "' was already "
                        + (state == State.RUNNING ? "started" : "stopped; build a new one to campaign again"));
            }
            state = State.RUNNING;
        }
        try {
            campaign();
        } catch (RuntimeException e) {
            synchronized (lock) {
                state = State.STOPPED;
            }
            throw e;
        }
    }

    /**
     * Stops campaigning and, if this candidate leads, ends the term by releasing its lease, so that
     * another candidate is elected without waiting for the TTL. Returns once the release has
     * answered — a concurrent second call too. No term is elected after this returns; listener
     * calls are asynchronous, so an {@code onElected} of a term elected just before may still be
     * delivered after it, always followed by that term's {@code onRevoked}. A grant already on its
     * way is released when it arrives: if the provider has granted but not yet returned from
     * {@code acquireAsync}, the lock stays held until it returns. Idempotent.
     */
    public void stop() {
        boolean first;
        synchronized (lock) {
            first = !stopRequested;
            stopRequested = true;
        }
        if (!first) {
            stopped.join(); // a concurrent stop() returns once the first one's release answered
            return;
        }
        try {
            stopOnce();
        } finally {
            stopped.complete(null);
        }
    }

    private void stopOnce() {
        Term ended;
        CompletableFuture<Lease> pending;
        synchronized (lock) {
            if (state == State.STOPPED) {
                return;
            }
            state = State.STOPPED;
            ended = term;
            term = null;
            pending = campaign;
            campaign = null;
            cancelTimer();
        }
        if (pending != null) {
            pending.cancel(false);
        }
        if (ended != null) {
            RevocationReason reason = RevocationReason.STOPPED;
            try {
                ended.lease().release();
            } catch (IllegalStateException released) {
                reason = RevocationReason.LOST; // someone released the term's lease before the stop
            } catch (RuntimeException lostOrUnclear) {
                // lost before the stop noticed, or no clear answer: the lock lapses on its TTL
                reason = ended.lease().isValid() ? RevocationReason.STOPPED : RevocationReason.LOST;
                LOG.info("ending the term {} of '{}': {}", ended.epoch(), lockName, lostOrUnclear.toString());
            }
            Term revoked = ended;
            RevocationReason why = reason;
            events.execute(() -> listener.onRevoked(revoked, why));
        }
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /**
     * Whether this candidate leads now: it holds a term whose lease is valid by the local monotonic
     * clock. May turn false at any moment; false after {@link #stop()}.
     */
    public boolean isLeader() {
        Term current = term;
        return current != null && current.isValid();
    }

    /** The term this candidate holds now, if its lease is valid; empty otherwise. */
    public Optional<Term> currentTerm() {
        Term current = term;
        return current != null && current.isValid() ? Optional.of(current) : Optional.empty();
    }

    /** The epoch (fencing token) of the term held now, to pass to fenced stores; empty if not leading. */
    public Optional<FencingToken> currentEpoch() {
        return currentTerm().map(Term::epoch);
    }

    /** The lock this candidate campaigns for. */
    public String lockName() {
        return lockName;
    }

    private void campaign() {
        synchronized (lock) {
            timer = null;
            if (state != State.RUNNING) {
                return;
            }
        }
        // outside the lock: a provider slow to return from acquireAsync must not hold up stop()
        CompletableFuture<Lease> next = provider.acquireAsync(lockName, leaseOptions);
        boolean stoppedMeanwhile;
        synchronized (lock) {
            stoppedMeanwhile = state != State.RUNNING;
            if (!stoppedMeanwhile) {
                campaign = next;
            }
        }
        if (stoppedMeanwhile) {
            next.cancel(false); // a grant already made is given back by campaignEnded
        }
        next.whenComplete(this::campaignEnded);
    }

    private void campaignLater(Duration delay) {
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            // the timer only ticks: the campaign calls the provider on a worker, so that one slow
            // provider cannot delay the validity checks of every other leadership in the JVM
            timer = LeadershipThreads.TIMER.schedule(() -> LeadershipThreads.WORKERS.execute(this::campaignFromTimer),
                    delay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void campaignFromTimer() {
        try {
            campaign();
        } catch (ProviderClosedException closed) {
            providerGone(closed);
        } catch (Throwable e) { // a checked exception thrown sneakily, an Error: the candidate must go on
            LOG.warn("campaign for '{}' could not start, retrying: {}", lockName, e.toString());
            campaignLater(nextFailureDelay());
        }
    }

    private void campaignEnded(@Nullable Lease lease, @Nullable Throwable failure) {
        if (lease == null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof CancellationException && stopRequested()) {
                return; // stopped
            }
            if (cause instanceof ProviderClosedException closed) {
                providerGone(closed);
            } else if (cause instanceof LockUnavailableException unavailable && unavailable.isTimeout()) {
                campaignLater(Duration.ZERO); // another candidate leads: keep waiting
            } else {
                LOG.warn("campaign for '{}' failed, retrying: {}", lockName, String.valueOf(cause));
                campaignLater(nextFailureDelay());
            }
            return;
        }
        Term elected;
        synchronized (lock) {
            if (campaign != null && campaign.isDone()) {
                campaign = null;
            }
            if (state != State.RUNNING || !lease.isValid()) {
                elected = null;
            } else {
                failures = 0;
                elected = new Term(lease.token(), lease, wallClock.instant());
                term = elected;
                Term announced = elected;
                // queued under the lock, before stop() can see the term: onElected always precedes its onRevoked
                events.execute(() -> listener.onElected(announced));
            }
        }
        if (elected == null) {
            LeadershipThreads.WORKERS.execute(() -> {
                releaseQuietly(lease);
                campaignLater(Duration.ZERO); // a grant that lapsed on its way: campaign again (if still running)
            });
            return;
        }
        watch(elected);
    }

    private void watch(Term watched) {
        long delay = Math.max(1, Math.min(watched.lease().remaining().toNanos(), checkEveryNanos));
        synchronized (lock) {
            if (term == watched) {
                timer = LeadershipThreads.TIMER.schedule(() -> check(watched), delay, TimeUnit.NANOSECONDS);
            }
        }
    }

    private void check(Term watched) {
        if (watched.isValid()) {
            watch(watched);
            return;
        }
        synchronized (lock) {
            if (term != watched) {
                return; // stopped meanwhile
            }
            term = null;
            timer = null;
            events.execute(() -> listener.onRevoked(watched, RevocationReason.LOST));
        }
        LeadershipThreads.WORKERS.execute(() -> {
            releaseQuietly(watched.lease()); // frees the provider's resources; owner-checked on the server
            campaignLater(reelectionBackoff.delay(0));
        });
    }

    private boolean stopRequested() {
        synchronized (lock) {
            return stopRequested || state != State.RUNNING;
        }
    }

    private Duration nextFailureDelay() {
        synchronized (lock) {
            return reelectionBackoff.delay(failures++);
        }
    }

    private void providerGone(ProviderClosedException closed) {
        synchronized (lock) {
            if (state == State.RUNNING) {
                LOG.warn("leadership of '{}' stops campaigning: {}", lockName, closed.getMessage());
            }
            state = State.STOPPED;
            campaign = null;
        }
        // a term still held ends on the watch timer when its lease lapses
    }

    private void cancelTimer() {
        ScheduledFuture<?> pending = timer;
        if (pending != null) {
            pending.cancel(false);
            timer = null;
        }
    }

    private void releaseQuietly(Lease lease) {
        try {
            lease.close();
        } catch (RuntimeException e) {
            LOG.debug("releasing {} after its term: {}", lease.token(), e.toString());
        }
    }

    @Override
    public String toString() {
        Term current = term;
        return "Leadership['" + lockName + "', " + (current != null && current.isValid()
                ? "leading with epoch " + current.epoch().value() : "not leading") + "]";
    }

    /** Builds a {@link Leadership}; every setter is optional. */
    public static final class Builder {
        private final LockProvider provider;
        private final String lockName;
        private Duration ttl = Duration.ofSeconds(15);
        private Backoff pollBackoff =
                Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(500), Duration.ofMillis(50));
        private Backoff reelectionBackoff =
                Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofMillis(100));
        private LeadershipListener listener = LeadershipListener.NONE;
        private Clock wallClock = Clock.systemUTC();

        private Builder(LockProvider provider, String lockName) {
            this.provider = provider;
            this.lockName = lockName;
        }

        /**
         * The TTL of each term's lease, renewed every {@code ttl / 3}: how long the lock outlives a
         * leader that died, and the longest a term can outlast the loss of its server. From
         * {@link #MIN_TTL} to {@link LeaseOptions#MAX_TTL}, whole milliseconds; 15 s by default.
         */
        public Builder ttl(Duration ttl) {
            Checks.requireBetween("leadership ttl", ttl, MIN_TTL, LeaseOptions.MAX_TTL);
            if (ttl.toNanos() % 1_000_000 != 0) {
                throw new IllegalArgumentException("leadership ttl must be a whole number of milliseconds, got " + ttl);
            }
            this.ttl = ttl;
            return this;
        }

        /** Hears the terms; none by default. */
        public Builder listener(LeadershipListener listener) {
            this.listener = Checks.requireNonNull("listener", listener);
            return this;
        }

        /**
         * The delay between the attempts of a campaign while another candidate leads, where the
         * provider cannot tell of a release (it wakes waiters on one where it can); from 10 ms
         * doubling to 500 ms, with up to 50 ms of jitter, by default.
         */
        public Builder pollBackoff(Backoff pollBackoff) {
            this.pollBackoff = Checks.requireNonNull("pollBackoff", pollBackoff);
            return this;
        }

        /**
         * The delay before campaigning again after a lost term (attempt 0) or after a campaign
         * failed, say with the server unreachable (attempt {@code n} after {@code n} failures in a
         * row); from 100 ms doubling to 5 s, with up to 100 ms of jitter, by default.
         */
        public Builder reelectionBackoff(Backoff reelectionBackoff) {
            this.reelectionBackoff = Checks.requireNonNull("reelectionBackoff", reelectionBackoff);
            return this;
        }

        /** The clock of {@link Term#electedAt()}, for display only; the system UTC clock by default. */
        public Builder wallClock(Clock wallClock) {
            this.wallClock = Checks.requireNonNull("wallClock", wallClock);
            return this;
        }

        /** A leadership, not yet started. */
        public Leadership build() {
            return new Leadership(this);
        }

        /** {@link #build()} and {@link Leadership#start()}. */
        public Leadership start() {
            Leadership leadership = build();
            leadership.start();
            return leadership;
        }
    }

    /** Runs one leadership's listener calls one at a time, in order, on the shared workers. */
    private final class SerialEvents {
        private final java.util.ArrayDeque<Runnable> queue = new java.util.ArrayDeque<>();
        private boolean draining;

        void execute(Runnable event) {
            synchronized (queue) {
                queue.add(event);
                if (draining) {
                    return;
                }
                draining = true;
            }
            LeadershipThreads.WORKERS.execute(this::drain);
        }

        private void drain() {
            while (true) {
                Runnable next;
                synchronized (queue) {
                    next = queue.poll();
                    if (next == null) {
                        draining = false;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException | Error e) {
                    // an Error too (an AssertionError in a test's listener): the events after it must still come
                    LOG.warn("a leadership listener of '{}' threw; ignored", lockName, e);
                }
            }
        }
    }
}
