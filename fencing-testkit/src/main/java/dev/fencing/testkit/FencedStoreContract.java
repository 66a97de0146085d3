package dev.fencing.testkit;

import dev.fencing.core.FencedStore;

/**
 * The contract every {@link FencedStore} passes: the storage-side gate, tombstones that keep the
 * mark, the read-modify-write that loses nothing (DESIGN.md invariants 2, 3, 4, 6, 7). Extend it
 * in the store's module with one small class that builds the store against a real server.
 *
 * <p>Every test uses fresh keys, so a shared server needs no cleaning.
 *
 * <p>The cases come in sections, one file each, chained because a class has one superclass:
 * {@code SingleHolderCases} (the gate, tombstones, read-modify-write, concurrent holders),
 * {@code TwoHolderCases} (two store instances, equal bytes, models and random histories),
 * {@code LostReplyCases} (replies lost after the store acted, with {@link #lostReplies()}) and
 * {@code KeyAndLockCases} (exact tokens, keys and lock names, bad arguments, with
 * {@link #whyKeysAreNotBoundToLocks()}). An implementation extends this class only.
 */
public abstract class FencedStoreContract extends KeyAndLockCases {}
