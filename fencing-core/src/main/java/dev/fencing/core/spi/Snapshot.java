package dev.fencing.core.spi;

import dev.fencing.core.FencingToken;
import org.jspecify.annotations.Nullable;

/**
 * What a store holds under a key, as its {@link StorageAccessor} loaded it.
 *
 * @param value the value, or {@code null} for a tombstone left by a fenced delete
 * @param token the high-water mark: the token of the last accepted write or delete
 * @param resource the resource whose tokens fence the key, or {@code null} if the item predates
 *     resource binding (the next write binds it)
 * @param version the store's version of the item (a counter, an ETag), compared by
 *     {@link StorageAccessor#writeIfUnchanged}
 * @param <V> the store's version type
 */
public record Snapshot<V>(@Nullable String value, long token, @Nullable String resource, V version) {

    /**
     * Whether the item is fenced by another lock than {@code token}'s: it keeps a resource, and
     * that resource differs from the token's (exactly, as Java strings).
     */
    public boolean fencedByAnotherLockThan(FencingToken token) {
        return resource != null && !resource.equals(token.resource());
    }

    /** Whether this is a tombstone: the item was deleted, its mark kept. */
    public boolean isTombstone() {
        return value == null;
    }
}
