package dev.fencing.spring.integration;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock of one key of a {@link FencedLockRegistry}: a toolkit lease taken for the thread that
 * locks it, with the lease's {@link #token()} for a fenced store.
 *
 * <p>As Spring Integration's {@code RedisLockRegistry} and {@code JdbcLockRegistry}: the lock is
 * owned by a thread and reentrant — every {@code lock}/{@code tryLock} of the owning thread counts
 * a hold, and the lease is released by the unlock that ends the last hold; the threads of one
 * registry queue for the lock in this process before one of them asks the server; {@link #unlock()}
 * by a thread that does not hold it throws {@link IllegalStateException}; {@link #newCondition()}
 * is not supported.
 *
 * <p>A lease lost while held (it expired, or its renewal found another owner) ends the holding
 * thread's critical section: the thread may have read under the old lease what another holder
 * has since changed, so it never goes on under a new token. The loss shows when the thread next
 * acts: a nested {@code tryLock} returns {@code false}, a nested {@code lock}/{@code lockInterruptibly}
 * throws {@link ConcurrentModificationException}, and every unlock of the section's holds throws
 * {@link ConcurrentModificationException}, as Spring's registries do at the unlock of a lost lock.
 * Until then {@link #token()} still answers the lost lease's token, which a fenced store refuses
 * once a newer holder wrote. Spring's {@code LockRegistryLeaderInitiator}, whose heartbeat is a
 * nested {@code tryLock}, then revokes leadership and takes a new lease, with a new token, in a
 * new section.
 *
 * <p>Thread-safe. {@link #lock()} waits without end (without answering interrupts, as the
 * {@code Lock} contract allows) unless the provider cannot be asked: then it throws the provider's
 * {@link LockUnavailableException}, as do the other ways of locking.
 */
public final class FencedLock implements DistributedLock {

    private final FencedLockRegistry registry;
    private final String name;
    private final ReentrantLock local = new ReentrantLock();
    private volatile @Nullable Lease lease;
    private volatile long lastUsedNanos;

    FencedLock(FencedLockRegistry registry, String name) {
        this.registry = registry;
        this.name = name;
        touch();
    }

    /** The name of the toolkit lock: the registry's key prefix and the key's {@code toString()}. */
    public String name() {
        return name;
    }

    /**
     * The fencing token of the lease the current thread holds this lock with, for a fenced store;
     * a lease lost meanwhile still answers its token (the store refuses it once a newer holder
     * wrote). Only the holding thread gets it: another thread of this process may be a holder whose
     * section already ended, and must not write with the current holder's token. To hand the token
     * to other threads, read it on the holding thread (in a leader's {@code onGranted}, for
     * instance) and pass the value: it stays the token of that term.
     *
     * @throws IllegalStateException if the current thread does not hold this lock
     */
    public FencingToken token() {
        FencedLock elsewhere = heldElsewhere();
        if (elsewhere != null) {
            return elsewhere.token();
        }
        return lease()
                .orElseThrow(() -> new IllegalStateException("lock '" + name + "' is not held by thread '"
                        + Thread.currentThread().getName() + "'" + (isLocked() ? " (another thread holds it)" : "")
                        + ", so it has no fencing token for it: call token() on the thread that locked, between a"
                        + " successful lock()/tryLock() and its last unlock()"))
                .token();
    }

    /** The lease the current thread holds this lock with, or empty if it does not hold it. */
    public Optional<Lease> lease() {
        if (local.isHeldByCurrentThread()) {
            return Optional.ofNullable(lease);
        }
        FencedLock elsewhere = heldElsewhere();
        return elsewhere == null ? Optional.empty() : elsewhere.lease();
    }

    /** Whether the current thread holds this lock. */
    public boolean isHeldByCurrentThread() {
        if (local.isHeldByCurrentThread()) {
            return true;
        }
        FencedLock elsewhere = heldElsewhere();
        return elsewhere != null && elsewhere.local.isHeldByCurrentThread();
    }

    /**
     * Where a lock call goes: this instance while a thread holds it, else the registry's instance of
     * the key — this one, or the one obtained after {@link FencedLockRegistry#expireUnusedOlderThan}
     * forgot this one. A caller that keeps its lock object across an expiry (Spring's leader
     * initiator does) so locks the key's one instance, instead of a second one that no other caller
     * of {@code obtain} would see.
     */
    private FencedLock target() {
        return local.isLocked() ? this : registry.current(this);
    }

    /** Another instance of this key through which the current thread holds it (or held an ended section). */
    private @Nullable FencedLock heldElsewhere() {
        FencedLock other = HeldLocks.instanceHolding(this).orElse(null);
        return other == this ? null : other;
    }

    boolean sameKey(FencedLock other) {
        return registry == other.registry && name.equals(other.name);
    }

    /** Whether a thread of this process holds this lock (its lease may have been lost since). */
    public boolean isLocked() {
        return local.isLocked();
    }

    /** Locks with the registry's TTL and auto-renewal, waiting as long as it takes. */
    @Override
    public void lock() {
        FencedLock target = target();
        if (target != this) {
            target.lock();
            return;
        }
        lockUninterruptibly(registry.defaults());
    }

    /** Locks with a lease of {@code ttl} that is not renewed, waiting as long as it takes. */
    @Override
    public void lock(Duration ttl) {
        FencedLock target = target();
        if (target != this) {
            target.lock(ttl);
            return;
        }
        lockUninterruptibly(registry.withTtl(ttl));
    }

    private void lockUninterruptibly(LeaseOptions options) {
        local.lock();
        boolean interrupted = false;
        try {
            requireLiveSection();
            while (true) {
                try {
                    if (takeLease(options, LeaseOptions.MAX_WAIT)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // lock() does not answer interrupts; the flag is restored below
                }
            }
        } catch (RuntimeException e) {
            local.unlock();
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Locks with the registry's TTL and auto-renewal, waiting until it is granted or interrupted. */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        FencedLock target = target();
        if (target != this) {
            target.lockInterruptibly();
            return;
        }
        local.lockInterruptibly();
        try {
            requireLiveSection();
            while (!takeLease(registry.defaults(), LeaseOptions.MAX_WAIT)) {
                // waited the longest wait a provider allows: wait again
            }
        } catch (InterruptedException | RuntimeException e) {
            local.unlock();
            throw e;
        }
    }

    /** One attempt, without waiting: {@code false} if another thread or owner holds the lock. */
    @Override
    public boolean tryLock() {
        FencedLock target = target();
        if (target != this) {
            return target.tryLock();
        }
        if (!local.tryLock()) {
            return false;
        }
        try {
            return takeOrGiveBack(registry.defaults(), Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // one attempt does not wait, so nothing was interrupted
            return false;
        }
    }

    /**
     * Waits up to {@code time} (at most {@link LeaseOptions#MAX_WAIT}; nothing if not positive).
     *
     * @return {@code false} if the lock stayed held by another thread or owner for that long
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        FencedLock target = target();
        if (target != this) {
            return target.tryLock(time, unit);
        }
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), registry.defaults());
    }

    /**
     * Waits up to {@code waitTime} (at most {@link LeaseOptions#MAX_WAIT}) for a lease of {@code ttl}
     * that is not renewed.
     *
     * @throws IllegalArgumentException if {@code ttl} is outside the bounds of {@link LeaseOptions}
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        FencedLock target = target();
        if (target != this) {
            return target.tryLock(waitTime, ttl);
        }
        return tryLock(waitTime, registry.withTtl(ttl));
    }

    private boolean tryLock(Duration waitTime, LeaseOptions options) throws InterruptedException {
        Duration wait = waitTime.isNegative() ? Duration.ZERO : min(waitTime, LeaseOptions.MAX_WAIT);
        long start = registry.clock().nanoTime();
        if (!local.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        Duration left = wait.minusNanos(registry.clock().nanoTime() - start);
        return takeOrGiveBack(options, left.isNegative() ? Duration.ZERO : left);
    }

    private boolean takeOrGiveBack(LeaseOptions options, Duration wait) throws InterruptedException {
        boolean taken = false;
        try {
            taken = liveSection() && takeLease(options, wait);
            return taken;
        } finally {
            if (!taken) {
                local.unlock();
            }
        }
    }

    /**
     * With {@link #local} held by a nested call: whether the section's lease is still valid. If it
     * was lost, ends the section — drops the thread's earlier holds (their unlocks throw
     * {@link ConcurrentModificationException}) and gives the lost lease back — and answers
     * {@code false}; the caller gives back the hold of this call. Spring's leader initiator, which
     * stops unlocking once a heartbeat's {@code tryLock} fails, would otherwise keep a hold for
     * ever. Answers {@code true} when this is not a nested call.
     */
    private boolean liveSection() {
        Lease held = lease;
        if (held == null || held.isValid()) {
            return true;
        }
        int dropped = local.getHoldCount() - 1;
        for (int i = 0; i < dropped; i++) {
            local.unlock();
        }
        lease = null;
        HeldLocks.end(this);
        closeLost(held);
        touch();
        return false;
    }

    private void requireLiveSection() {
        Lease held = lease;
        if (!liveSection()) {
            throw new ConcurrentModificationException("lock '" + name + "' was lost while this thread held it"
                    + (held == null ? "" : " with token " + held.token()) + ": its critical section has ended"
                    + " (the unlocks of its holds throw this too); lock it again to start a new one");
        }
    }

    /**
     * With {@link #local} held and the section live: counts a hold on the section's lease, or,
     * for the first hold, takes a lease.
     *
     * @return whether a lease is held now; {@code false} if the wait ran out
     */
    private boolean takeLease(LeaseOptions options, Duration wait) throws InterruptedException {
        if (lease == null) {
            registry.current(this); // forgotten between obtain and lock: the key's instance again
            Optional<Lease> fresh = grant(options, wait);
            if (fresh.isEmpty()) {
                return false;
            }
            lease = fresh.get();
        }
        HeldLocks.push(this);
        touch();
        return true;
    }

    private Optional<Lease> grant(LeaseOptions options, Duration wait) throws InterruptedException {
        if (wait.isZero()) {
            return registry.provider().tryAcquire(name, options);
        }
        try {
            return Optional.of(registry.provider().acquire(name, options.withWaitTimeout(wait)));
        } catch (LockUnavailableException e) {
            if (e.isTimeout()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static void closeLost(Lease lost) {
        try {
            lost.close();
        } catch (RuntimeException e) {
            // it was lost: its release has nothing left to free
        }
    }

    /**
     * Ends one hold of the current thread; the last one releases the lease.
     *
     * @throws IllegalStateException if the current thread does not hold this lock
     * @throws ConcurrentModificationException if the lease was lost before this last unlock (it
     *     expired or another owner took the lock): part of the critical section may have run
     *     without the lock. The lock is unlocked in this process anyway. Also for each unlock of a
     *     hold that a nested lock ended when it found the lease lost and could not take a new one.
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            FencedLock elsewhere = heldElsewhere();
            if (elsewhere != null) {
                elsewhere.unlock();
                return;
            }
            if (HeldLocks.takeEnded(this)) {
                throw new ConcurrentModificationException("lock '" + name + "' was lost while this thread held"
                        + " it, which a nested lock of this thread found and which ended its holds: the critical"
                        + " section may have run without it; writes fenced with its token were refused once a"
                        + " newer holder wrote");
            }
            throw new IllegalStateException("lock '" + name + "' is not held by thread '"
                    + Thread.currentThread().getName() + "'" + (local.isLocked() ? " (another thread holds it)" : "")
                    + ": only the thread that locked it can unlock it");
        }
        HeldLocks.pop(this);
        if (local.getHoldCount() > 1) {
            local.unlock();
            Lease held = lease;
            if (held != null && !held.isValid()) {
                throw new ConcurrentModificationException("lock '" + name + "' was lost while this thread held"
                        + " it with token " + held.token() + ": the critical section of this hold may have run"
                        + " without it; writes fenced with its token were refused once a newer holder wrote");
            }
            return;
        }
        Lease held = lease;
        lease = null;
        try {
            if (held != null) {
                held.release();
            }
        } catch (LeaseLostException e) {
            throw new ConcurrentModificationException("lock '" + name + "' was lost before its unlock (" + e.getMessage()
                    + "): the critical section may have run without it; writes fenced with its token "
                    + held.token() + " were refused once a newer holder wrote", e);
        } finally {
            touch();
            local.unlock();
        }
    }

    /** Not supported, as in Spring Integration's distributed lock registries. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by FencedLock");
    }

    void touchObtained() {
        touch();
    }

    long lastUsedNanos() {
        return lastUsedNanos;
    }

    private void touch() {
        lastUsedNanos = registry.clock().nanoTime();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public String toString() {
        Lease held = lease;
        return "FencedLock[" + name + (held == null ? ", unlocked" : ", " + held.token()) + "]";
    }
}
