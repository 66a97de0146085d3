package dev.fencing.core.spi;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The conditional primitive a store adapter implements; {@link StorageBasedFencedStore} builds
 * the whole {@link dev.fencing.core.FencedStore} contract on it.
 *
 * <p>Each write must be ONE atomic conditional operation of the store (one SQL statement or
 * transaction, one conditional request), never a read followed by an unconditional write. A
 * {@code null} value writes a tombstone that keeps the token as the mark.
 *
 * <p>The item also keeps the resource of the token that wrote it, and a write's condition
 * includes "the stored resource is absent or equal to the token's resource" (compared exactly,
 * byte for byte, whatever the store's collation); a mismatch answers {@link WriteOutcome#foreign}.
 *
 * <p>A failure because the server did not answer in time or could not be reached is the client's
 * own exception, which {@link #unanswered} recognises; the store turns it into
 * {@link dev.fencing.core.StoreUnavailableException} ("nothing was written by this call"). So a write
 * must never let such a failure escape once its request may have reached the server: it settles
 * the write (a write id, a marker) or throws {@link dev.fencing.core.WriteOutcomeUnknownException}.
 *
 * @param <V> the store's version type (a counter, an ETag)
 */
public interface StorageAccessor<V> {

    /** The item under {@code key}, tombstones included; empty if nothing was ever written there. */
    Optional<Snapshot<V>> load(String key);

    /**
     * Writes {@code value} (or a tombstone) with {@code token} if {@code policy} accepts the token
     * against the item's mark, whatever the item's version; creates the item if absent.
     *
     * @return {@link WriteOutcome#written()}, {@link WriteOutcome#stale(long)} or {@link WriteOutcome#foreign}
     */
    WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy);

    /**
     * Writes {@code value} with {@code token} only if the item is still as {@code expected}
     * (same version; or still absent when {@code expected} is {@code null}) and {@code policy}
     * accepts the token.
     *
     * @return {@link WriteOutcome#written()}, {@link WriteOutcome#stale(long)}, {@link WriteOutcome#foreign}, or
     *     {@link WriteOutcome#conflict()} when the item changed (a store that cannot tell the two
     *     apart may answer conflict; the core reloads and decides)
     */
    WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<V> expected, String value, FencingToken token,
            Policy policy);

    /**
     * Whether {@code failure}, thrown by this accessor, means the server did not answer in time or
     * could not be reached (a timeout, a refused or dropped connection) — not an answer, however
     * unwelcome. False unless the accessor says otherwise.
     */
    default boolean unanswered(RuntimeException failure) {
        return false;
    }

    /** The server as messages name it, such as {@code "S3 at http://127.0.0.1:9090, bucket 'b'"}. */
    default String server() {
        return getClass().getSimpleName();
    }
}
