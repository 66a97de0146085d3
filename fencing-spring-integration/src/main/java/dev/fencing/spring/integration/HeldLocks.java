package dev.fencing.spring.integration;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;

/**
 * Per thread: its holds of fenced locks, innermost first, one entry per hold (so a lock locked
 * again inside another is innermost again), for {@link FencedLockRegistry#currentToken()}. A hold
 * of a section that a nested lock found lost, and ended, stays as an ended entry until its unlock
 * (which then throws): while an ended entry is innermost, the thread is inside a section that has
 * no token, and {@code currentToken()} says so rather than answering an outer lock's token. A
 * thread that never unlocks an ended section (as Spring's leader initiator after a lost term) keeps
 * one small entry per ended hold for its life.
 */
final class HeldLocks {

    private record Hold(FencedLock lock, boolean ended) {}

    private static final ThreadLocal<Deque<Hold>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private HeldLocks() {}

    /** The innermost hold's lock, if the thread holds any. */
    static Optional<FencedLock> innermost() {
        Hold hold = HELD.get().peek();
        cleanUp();
        return hold == null ? Optional.empty() : Optional.of(hold.lock());
    }

    /** Whether the innermost hold belongs to a section that has ended. */
    static boolean innermostEnded() {
        Hold hold = HELD.get().peek();
        cleanUp();
        return hold != null && hold.ended();
    }

    /**
     * The instance of {@code like}'s key (same registry, same name) that the thread's innermost hold
     * of that key is on, live or ended: a caller whose lock object was forgotten by the registry
     * holds the key through the instance its call went to.
     */
    static Optional<FencedLock> instanceHolding(FencedLock like) {
        for (Hold hold : HELD.get()) {
            if (hold.lock().sameKey(like)) {
                cleanUp();
                return Optional.of(hold.lock());
            }
        }
        cleanUp();
        return Optional.empty();
    }

    /** A new hold of {@code lock}. */
    static void push(FencedLock lock) {
        HELD.get().push(new Hold(lock, false));
    }

    /** Ends the innermost live hold of {@code lock}. */
    static void pop(FencedLock lock) {
        remove(lock, false);
    }

    /** Marks every live hold of {@code lock} as ended, in place. */
    static void end(FencedLock lock) {
        Deque<Hold> held = HELD.get();
        Deque<Hold> marked = new ArrayDeque<>(held.size());
        for (Hold hold : held) {
            marked.addLast(hold.lock() == lock ? new Hold(lock, true) : hold);
        }
        held.clear();
        held.addAll(marked);
    }

    /** Whether the thread had an ended hold of {@code lock}, removing the innermost one. */
    static boolean takeEnded(FencedLock lock) {
        return remove(lock, true);
    }

    private static boolean remove(FencedLock lock, boolean ended) {
        Iterator<Hold> holds = HELD.get().iterator();
        try {
            while (holds.hasNext()) {
                Hold hold = holds.next();
                if (hold.lock() == lock && hold.ended() == ended) {
                    holds.remove();
                    return true;
                }
            }
            return false;
        } finally {
            cleanUp();
        }
    }

    private static void cleanUp() {
        if (HELD.get().isEmpty()) {
            HELD.remove();
        }
    }
}
