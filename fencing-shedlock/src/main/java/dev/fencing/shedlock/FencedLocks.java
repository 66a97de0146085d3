package dev.fencing.shedlock;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lease, and so the fencing token, of the ShedLock task running on this thread, when the
 * lock was taken through {@link FencedShedLockProvider}. A {@code @SchedulerLock} job hands the
 * token to a fenced store, so that a late write of an execution that outlived its
 * {@code lockAtMostFor} is refused:
 *
 * <pre>{@code
 * @Scheduled(cron = "0 * * * * *")
 * @SchedulerLock(name = "close-day", lockAtMostFor = "5m")
 * void closeDay() {
 *     ledger.write(FencedLocks.currentToken(), "day", close());
 * }
 * }</pre>
 *
 * ShedLock runs a task on the thread that took its lock, so the lease is kept per thread from
 * the lock to its unlock; nested locks stack, and the innermost is current.
 */
public final class FencedLocks {

    private static final ThreadLocal<Deque<Lease>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private FencedLocks() {}

    /**
     * The fencing token of the innermost fenced ShedLock lock this thread holds.
     *
     * @throws IllegalStateException if this thread runs no task under a lock of a
     *     {@link FencedShedLockProvider} (outside a task, on another thread, or after its unlock)
     */
    public static FencingToken currentToken() {
        return currentLease().map(Lease::token).orElseThrow(() -> new IllegalStateException(
                "no ShedLock task holding a lock of a FencedShedLockProvider runs on thread '"
                        + Thread.currentThread().getName() + "': call FencedLocks.currentToken() inside the task, on"
                        + " the thread ShedLock runs it on, with FencedShedLockProvider as the ShedLock LockProvider"));
    }

    /** The lease of the innermost fenced ShedLock lock this thread holds, if any. */
    public static Optional<Lease> currentLease() {
        return Optional.ofNullable(HELD.get().peek());
    }

    static void push(Lease lease) {
        HELD.get().push(lease);
    }

    /** Forgets {@code lease} for this thread (the innermost, normally). */
    static void remove(Lease lease) {
        Deque<Lease> held = HELD.get();
        held.remove(lease);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
