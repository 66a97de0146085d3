package dev.fencing.core;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * A small key-value record store that refuses stale writes: the common SPI over every store
 * adapter (JDBC, DynamoDB, S3, Redis, in-memory). DAOs usually call each store's native fenced
 * API instead; this one serves the CLI, the contract suites and callers who just want a fenced
 * record.
 *
 * <p>Per key, the store keeps the highest token it has accepted (the high-water mark). Each
 * write is one atomic conditional operation of the underlying store: it lands only if
 * {@link #policy()} accepts its token against the mark, and raises the mark to its token.
 * A delete leaves a tombstone that keeps the mark, so an older holder cannot re-create the item.
 *
 * <p>A write whose reply is lost (a timeout, a dropped connection) is applied at most once: the
 * store answers "written" when it can prove its own write landed, and otherwise throws
 * {@link WriteOutcomeUnknownException} rather than re-applying the change (the Redis, DynamoDB and
 * S3 stores do; a store without write ids may pass on its driver's error instead).
 *
 * <p>Each key is bound to the lock whose tokens fence it: the resource of the first token written
 * to it. A token of another resource is refused with {@link ForeignTokenException} — token values
 * of different locks are not comparable. Keys fenced by several locks on purpose take their tokens
 * under one shared name ({@link FencingToken#forSharedFence(String)}).
 *
 * <p>Every write takes the token first, then the key, then the value: the same order as the
 * toolkit's wrappers ({@code RowGuard}, {@code FencedDynamoDb}, {@code FencedS3}).
 *
 * <p>Keys are 1 to 256 characters without control characters; values are non-null strings.
 * Implementations are thread-safe.
 */
public interface FencedStore {

    /**
     * Writes {@code value} under {@code key} if {@code token} is not stale.
     *
     * @throws StaleTokenException if the store has accepted a newer token for {@code key} (or an
     *     equal one under {@link Policy#STRICT}); nothing was written
     * @throws ForeignTokenException if {@code key} is fenced by another lock's tokens; nothing was written
     * @throws WriteOutcomeUnknownException if the reply was lost and the write may or may not have landed
     * @throws StoreUnavailableException if the server did not answer or could not be reached and the
     *     write was not sent; nothing was written
     */
    void write(FencingToken token, String key, String value);

    /**
     * The value under {@code key}; empty if there is none or it was deleted.
     *
     * @throws StoreUnavailableException if the server did not answer in time or could not be reached
     */
    Optional<StoredValue> read(String key);

    /**
     * A fenced read-modify-write that loses nothing: reads the value (empty if absent), applies
     * {@code change}, and writes the result only if the item is unchanged since the read and
     * {@code token} is not stale; if the item changed it re-reads and re-applies, a bounded
     * number of times. A write by an older holder that lands between this read and this write
     * is therefore never overwritten by a value computed without it. {@code change} may run more
     * than once and must not have side effects.
     *
     * @return the value written
     * @throws StaleTokenException if the store has accepted a newer token for {@code key}
     * @throws ForeignTokenException if {@code key} is fenced by another lock's tokens; {@code change} was not applied
     * @throws ConcurrentUpdateException if the item kept changing; nothing was written
     * @throws WriteOutcomeUnknownException if the reply was lost and the write may or may not have landed;
     *     {@code change} was not applied a second time
     * @throws StoreUnavailableException if the server did not answer the read, or the write was not
     *     sent; nothing was written
     */
    StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change);

    /**
     * Deletes the value under {@code key}, leaving a tombstone with {@code token} as the mark.
     * Deleting an absent key still records the mark.
     *
     * @throws StaleTokenException if the store has accepted a newer token for {@code key}
     * @throws ForeignTokenException if {@code key} is fenced by another lock's tokens; nothing was written
     * @throws WriteOutcomeUnknownException if the reply was lost and the delete may or may not have landed
     * @throws StoreUnavailableException if the server did not answer or could not be reached and the
     *     delete was not sent; nothing was written
     */
    void delete(FencingToken token, String key);

    /**
     * The high-water mark of {@code key} — the highest token accepted for it, deleted or not —
     * or empty if no fenced write ever reached it. For inspection; never needed to write safely.
     *
     * @throws StoreUnavailableException if the server did not answer in time or could not be reached
     */
    OptionalLong highWaterMark(String key);

    /** The policy this store applies to every write. */
    Policy policy();
}
