package dev.fencing.testkit;

import dev.fencing.core.WriteOutcomeUnknownException;

/**
 * The memory behind {@link InMemoryFencedStore}s: stores built over one {@code InMemoryStorage}
 * share their items, as processes share a database. Also where a test simulates a lost reply.
 * Thread-safe.
 */
public final class InMemoryStorage {

    private final InMemoryStorageAccessor accessor = new InMemoryStorageAccessor();

    /** A new, empty memory. */
    public InMemoryStorage() {}

    InMemoryStorageAccessor accessor() {
        return accessor;
    }

    /**
     * Simulates a reply lost after the store acted, for the contract's lost-reply cases: the next
     * write to this memory is carried out, then {@code inTheWindow} runs (another writer), then the
     * writer is told {@link WriteOutcomeUnknownException} — what a store that cannot prove its own
     * write must say.
     */
    public void loseNextWriteReply(Runnable inTheWindow) {
        accessor.loseNextWriteReply(inTheWindow);
    }

    /** How many replies {@link #loseNextWriteReply} lost so far. */
    public int lostReplies() {
        return accessor.lostReplies();
    }
}
