package dev.fencing.spring.integration;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/** The fenced locks each thread holds, innermost first, for {@link FencedLockRegistry#currentToken()}. */
final class HeldLocks {

    private static final ThreadLocal<Deque<FencedLock>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private HeldLocks() {}

    static Optional<FencedLock> innermost() {
        return Optional.ofNullable(HELD.get().peek());
    }

    static void push(FencedLock lock) {
        HELD.get().push(lock);
    }

    static void remove(FencedLock lock) {
        Deque<FencedLock> held = HELD.get();
        held.remove(lock);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
