package dev.fencing.cli.backends;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;

/**
 * A store a technology's opener made ready for the run.
 *
 * @param stores makes the fenced store under a policy; null when read-only and {@code notSetUp}
 * @param plain the same storage, unfenced; null when read-only
 * @param description where the store lives, in words
 * @param embedded whether it lives on a server the CLI started (and so holds nothing from before)
 * @param notSetUp read-only: what the store needs and the server lacks (a table or bucket), or null
 */
record OpenedStore(Factory stores, PlainStore plain, String description, boolean embedded, String notSetUp) {

    OpenedStore(Factory stores, PlainStore plain, String description, boolean embedded) {
        this(stores, plain, description, embedded, null);
    }

    /** Read-only, and the server lacks what the store needs. */
    static OpenedStore notSetUp(String description, boolean embedded, String missing) {
        return new OpenedStore(null, null, description, embedded, missing);
    }

    /** A fenced store under a policy. */
    @FunctionalInterface
    interface Factory {
        FencedStore create(Policy policy);
    }
}
