package dev.fencing.zookeeper;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.spi.AbstractLease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/** A held znode: the lease's TTL, lapse and suspension timers on top of the session. */
final class ZooKeeperLease extends AbstractLease {
    private final ZooKeeperLockProvider provider;
    private final MonotonicClock clock;
    private final String path;
    private final long sessionId;
    final SessionBound bound; // read by the provider's session checks
    private long serverDeadline; // guarded by this
    private long confirmedAt; // guarded by this: the start of the last request ZooKeeper answered
    private boolean gone; // guarded by this: deleted (lapsed, released) or lost with the session
    private @Nullable ScheduledFuture<?> lapse; // guarded by this
    private @Nullable ScheduledFuture<?> suspension; // guarded by this
    private long suspendedSessionNanos; // guarded by this: the session timeout when the connection was suspended
    private @Nullable CompletableFuture<Optional<Stat>> confirming; // guarded by this: a renewal's request in flight

    ZooKeeperLease(ZooKeeperLockProvider provider, MonotonicClock clock, FencingListener listener, FencingToken token,
            String ownerId, long requestedAt, Duration ttl, Znodes.Created znode, SessionBound bound) {
        super(token, ownerId, requestedAt, ttl, clock, listener);
        this.provider = provider;
        this.clock = clock;
        this.path = znode.path();
        this.sessionId = znode.sessionId();
        this.bound = bound;
        this.serverDeadline = requestedAt + ttl.toNanos();
        this.confirmedAt = requestedAt;
    }

    /** Valid no longer than the ensemble surely keeps the session: see the lease validity rule in docs/zookeeper.md. */
    @Override
    protected long boundedDeadline(long deadlineNanos) {
        long sessionEnd = provider.sessionDeadline(bound);
        return sessionEnd - deadlineNanos < 0 ? sessionEnd : deadlineNanos;
    }

    synchronized void scheduleLapse() {
        if (lapse != null) {
            lapse.cancel(false);
        }
        long margin = TimeUnit.MILLISECONDS.toNanos(ZooKeeperLockProvider.LAPSE_MARGIN_MILLIS);
        long delay = serverDeadline - clock.nanoTime() + margin;
        try {
            lapse = provider.timers.schedule(this::lapseIfDue, Math.max(0, delay), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            lapse = null; // the provider is closing: its session ends and takes the znode along
        }
    }

    private synchronized void lapseIfDue() {
        if (gone) {
            return;
        }
        if (clock.nanoTime() - serverDeadline < 0) {
            scheduleLapse(); // renewed meanwhile
            return;
        }
        dropZnode();
    }

    /** Deletes the znode in the background and forgets the lease; the local waiters are told. */
    private void dropZnode() {
        gone = true;
        cancelTimers();
        provider.held.remove(this);
        provider.znodes.deleteInBackground(path);
        provider.signalRelease(resource());
    }

    synchronized void suspended(Duration sessionTimeout) {
        if (gone || suspension != null) {
            return;
        }
        suspendedSessionNanos = sessionTimeout.toNanos();
        scheduleSuspension();
    }

    /** Schedules the loss a session timeout after the last confirmed request; called holding this. */
    private void scheduleSuspension() {
        long sessionMillis = TimeUnit.NANOSECONDS.toMillis(suspendedSessionNanos);
        long lostAt = Math.min(serverDeadline, confirmedAt + suspendedSessionNanos);
        try {
            suspension = provider.timers.schedule(() -> lose("the connection to ZooKeeper was suspended for longer than"
                    + " the session could live (" + sessionMillis + " ms after the lease's last"
                    + " confirmed request)"), Math.max(0, lostAt - clock.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            lose("the connection to ZooKeeper was suspended while the provider closed");
        }
    }

    synchronized void reconnected(long currentSession) {
        if (currentSession != sessionId) {
            lose("ZooKeeper reconnected with a new session: the lease's session ended and its znode with it");
            return;
        }
        if (suspension != null) {
            suspension.cancel(false);
            suspension = null;
        }
    }

    void lose(String reason) {
        synchronized (this) {
            if (gone) {
                return;
            }
            gone = true;
            cancelTimers();
            provider.held.remove(this);
            provider.znodes.deleteInBackground(path); // mostly gone already; a closed client's session took it along
        }
        markLost(reason, null);
        provider.signalRelease(resource());
    }

    /** Cancels the timers, and ends the wait of a renewal in flight; called holding this. */
    private void cancelTimers() {
        if (lapse != null) {
            lapse.cancel(false);
        }
        if (suspension != null) {
            suspension.cancel(false);
        }
        if (confirming != null) {
            confirming.cancel(false);
        }
    }

    /**
     * Confirms through the leader that the znode still exists in the lease's session, and
     * extends the TTL from the start of that request. The lease's lock is held only to read its
     * state before the request and to apply the answer after it, never across the network call:
     * a suspension, a loss or the lapse timer never waits for a renewal. If the lease was lost,
     * released or lapsed while the request was in flight, the answer is dropped and the wait
     * ends at once. A request not answered within the operation timeout extends nothing.
     */
    @Override
    protected boolean doRenew(Duration ttl) {
        long start = clock.nanoTime();
        synchronized (this) {
            if (gone) {
                return false;
            }
            if (start - serverDeadline >= 0) {
                dropZnode(); // expired: as a server-side TTL would, refuse to bring it back
                return false;
            }
        }
        if (start - provider.sessionDeadline(bound) >= 0) {
            lose("its ZooKeeper session was not confirmed through the leader in time: the ensemble may have"
                    + " ended it (see the lease validity rule of ZooKeeperLockProvider)");
            return false;
        }
        CompletableFuture<Optional<Stat>> answer;
        try {
            answer = provider.znodes.statFromLeader(path);
        } catch (Exception e) {
            throw provider.unreachable(resource(), "the renewal's check of the lease's znode", e);
        }
        synchronized (this) {
            if (gone) {
                return false;
            }
            confirming = answer;
        }
        Optional<Stat> stat;
        try {
            stat = answer.get(provider.operationTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (CancellationException e) {
            return false; // lost, released or lapsed while the request was in flight
        } catch (TimeoutException e) {
            throw provider.unreachable(resource(), "the renewal's check of the lease's znode through the leader within "
                    + provider.operationTimeout.toMillis() + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw provider.unreachable(resource(), "the renewal's check of the lease's znode before an interrupt", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Znodes.WentBackwards back) {
                // what the restored server says about this znode is the backup's: the lease is lost
                lose(String.valueOf(back.getMessage()));
                throw LeaseLostException.of(token(), String.valueOf(back.getMessage()), back);
            }
            throw provider.unreachable(resource(), "the renewal's check of the lease's znode through the leader",
                    e.getCause() instanceof Exception cause ? cause : e);
        } finally {
            answer.cancel(false);
            synchronized (this) {
                if (confirming == answer) {
                    confirming = null;
                }
            }
        }
        synchronized (this) {
            if (gone) {
                return false;
            }
            if (stat.isEmpty() || stat.get().getEphemeralOwner() != sessionId) {
                gone = true;
                cancelTimers();
                provider.held.remove(this);
                return false;
            }
            if (clock.nanoTime() - serverDeadline >= 0) {
                dropZnode(); // expired while the request was in flight: not brought back either
                return false;
            }
            confirmedAt = start;
            serverDeadline = start + ttl.toNanos();
            provider.confirmed(bound, start);
            scheduleLapse();
            if (suspension != null) { // answered after the suspension began: the session lived until then
                suspension.cancel(false);
                scheduleSuspension();
            }
            return true;
        }
    }

    @Override
    protected boolean doRelease() {
        boolean expired;
        synchronized (this) {
            long now = clock.nanoTime();
            expired = gone || now - serverDeadline >= 0 || now - provider.sessionDeadline(bound) >= 0;
            gone = true;
            cancelTimers();
            provider.held.remove(this);
        }
        try {
            Znodes.Deletion deletion = provider.znodes.delete(path, provider.operationTimeout);
            // gone after a lost reply, in the lease's own session: nothing else deletes a held
            // lease's znode while its session lives (a lapse counts as expired), so the lost
            // request did — the lease was held until this release
            boolean mine = deletion == Znodes.Deletion.DELETED
                    || (deletion == Znodes.Deletion.GONE_AFTER_A_LOST_REPLY && provider.znodes.sessionId() == sessionId);
            return mine && !expired;
        } catch (IllegalStateException e) {
            return false; // the client is closed: its session ended and took the znode along
        } catch (Exception e) {
            throw provider.unreachable(resource(), "the release (a guaranteed delete, retried in the background)", e);
        } finally {
            provider.signalRelease(resource());
        }
    }
}
