package dev.fencing.core.spi;

import org.jspecify.annotations.Nullable;

/**
 * The result of one conditional write of a {@link StorageAccessor}.
 *
 * @param status what happened
 * @param highWaterMark for {@link Status#STALE}: the mark the store reported, or -1 if the store
 *     could not say in the same request (the core then reads it)
 * @param boundResource for {@link Status#FOREIGN}: the resource whose tokens fence the key
 */
public record WriteOutcome(Status status, long highWaterMark, @Nullable String boundResource) {

    /** What happened to a conditional write. */
    public enum Status {
        /** The write landed. */
        WRITTEN,
        /** The token was refused against the item's high-water mark; nothing was written. */
        STALE,
        /** The item was not in the expected state (version); nothing was written. */
        CONFLICT,
        /** The key is fenced by another resource's tokens; nothing was written. */
        FOREIGN
    }

    private static final WriteOutcome WRITTEN = new WriteOutcome(Status.WRITTEN, -1, null);
    private static final WriteOutcome CONFLICT = new WriteOutcome(Status.CONFLICT, -1, null);

    /** The write landed. */
    public static WriteOutcome written() {
        return WRITTEN;
    }

    /** The token was refused; the store's mark is {@code highWaterMark} (-1 if unknown). */
    public static WriteOutcome stale(long highWaterMark) {
        return new WriteOutcome(Status.STALE, highWaterMark, null);
    }

    /** The item changed since it was loaded. */
    public static WriteOutcome conflict() {
        return CONFLICT;
    }

    /** The key is fenced by the tokens of {@code boundResource}, not by the presented token's resource. */
    public static WriteOutcome foreign(String boundResource) {
        return new WriteOutcome(Status.FOREIGN, -1, boundResource);
    }
}
