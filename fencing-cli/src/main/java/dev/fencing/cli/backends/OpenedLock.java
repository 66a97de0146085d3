package dev.fencing.cli.backends;

import dev.fencing.core.LockProvider;
import java.util.List;

/**
 * A lock a technology's opener made ready for the run.
 *
 * @param locks the provider; null when read-only and {@code notSetUp}
 * @param description where the lock lives, in words
 * @param tokenNote what its tokens are, in words
 * @param faults what can be injected: only into servers the CLI started
 * @param notSetUp read-only: what the lock needs and the server lacks (a table), or null
 */
record OpenedLock(LockProvider locks, String description, String tokenNote, List<Fault> faults, String notSetUp) {

    OpenedLock(LockProvider locks, String description, String tokenNote, List<Fault> faults) {
        this(locks, description, tokenNote, List.copyOf(faults), null);
    }

    /** Read-only, and the server lacks what the lock needs. */
    static OpenedLock notSetUp(String description, String tokenNote, String missing) {
        return new OpenedLock(null, description, tokenNote, List.of(), missing);
    }
}
