package dev.fencing.spring.integration;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Per thread: its holds of fenced locks, innermost first (one entry per hold, so a lock locked
 * again inside another is innermost again), for {@link FencedLockRegistry#currentToken()}; and the
 * holds of lost leases that a nested lock ended, whose unlocks are still to come (a thread that
 * never unlocks them, as Spring's leader initiator, keeps one count per lock).
 */
final class HeldLocks {

    private static final ThreadLocal<Deque<FencedLock>> HELD = ThreadLocal.withInitial(ArrayDeque::new);
    private static final ThreadLocal<Map<FencedLock, Integer>> DROPPED = ThreadLocal.withInitial(IdentityHashMap::new);

    private HeldLocks() {}

    static Optional<FencedLock> innermost() {
        return Optional.ofNullable(HELD.get().peek());
    }

    static void push(FencedLock lock) {
        HELD.get().push(lock);
    }

    /** Ends the innermost hold of {@code lock}. */
    static void pop(FencedLock lock) {
        Deque<FencedLock> held = HELD.get();
        held.removeFirstOccurrence(lock);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }

    /** Ends every hold of {@code lock}. */
    static void removeAll(FencedLock lock) {
        Deque<FencedLock> held = HELD.get();
        held.removeIf(l -> l == lock);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }

    static void dropped(FencedLock lock, int holds) {
        if (holds > 0) {
            DROPPED.get().merge(lock, holds, Integer::sum);
        }
    }

    /** Whether one of the current thread's holds of {@code lock} was dropped, counting it as unlocked. */
    static boolean takeDropped(FencedLock lock) {
        Map<FencedLock, Integer> dropped = DROPPED.get();
        Integer holds = dropped.get(lock);
        if (holds == null) {
            if (dropped.isEmpty()) {
                DROPPED.remove();
            }
            return false;
        }
        if (holds == 1) {
            dropped.remove(lock);
        } else {
            dropped.put(lock, holds - 1);
        }
        if (dropped.isEmpty()) {
            DROPPED.remove();
        }
        return true;
    }
}
