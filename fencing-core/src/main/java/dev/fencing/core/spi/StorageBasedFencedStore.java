package dev.fencing.core.spi;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.core.StoredValue;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.internal.SafeListener;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The {@link FencedStore} algorithm, written once over a store's {@link StorageAccessor}.
 *
 * <ol>
 *   <li>{@code write} and {@code delete}: one token-guarded write; if refused, the mark comes
 *       from the same request or, failing that, from a read.
 *   <li>{@code update}: load the item; refuse at once if the token is already stale; apply the
 *       change; write only if the item is unchanged since the load (version and token checked
 *       in one atomic operation); on a conflict, load again — up to {@code maxUpdateAttempts}.
 *       A zombie's write that lands between the load and the write is thereby never overwritten
 *       by a value computed without it (invariant 6).
 *   <li>every write: refused with {@link ForeignTokenException} if the key is bound to another
 *       resource — checked by the accessor in the same atomic operation, and by {@code update}
 *       before it applies the change.
 * </ol>
 */
public final class StorageBasedFencedStore implements FencedStore {

    private final StorageAccessor<?> accessor;
    private final Policy policy;
    private final FencingListener listener;
    private final int maxUpdateAttempts;

    /**
     * @param maxUpdateAttempts how many conditional writes {@code update} tries, 1 to 1000
     */
    public StorageBasedFencedStore(StorageAccessor<?> accessor, Policy policy, FencingListener listener,
            int maxUpdateAttempts) {
        this.accessor = Checks.requireNonNull("accessor", accessor);
        this.policy = Checks.requireNonNull("policy", policy);
        this.listener = SafeListener.of(listener);
        if (maxUpdateAttempts < 1 || maxUpdateAttempts > 1000) {
            throw new IllegalArgumentException("maxUpdateAttempts must be between 1 and 1000, got " + maxUpdateAttempts);
        }
        this.maxUpdateAttempts = maxUpdateAttempts;
    }

    /** A store with {@link Policy#MONOTONIC}, no listener and 100 update attempts. */
    public static StorageBasedFencedStore of(StorageAccessor<?> accessor) {
        return new StorageBasedFencedStore(accessor, Policy.MONOTONIC, FencingListener.NONE, 100);
    }

    @Override
    public void write(FencingToken token, String key, String value) {
        checkKeyAndToken(key, token);
        Checks.requireNonNull("value", value);
        try {
            ensureWritten(key, token, accessor.write(key, value, token, policy));
        } catch (RuntimeException e) {
            throw failed(key, "write", e);
        }
        listener.onWriteAccepted(token, key);
    }

    @Override
    public Optional<StoredValue> read(String key) {
        Checks.requireName("key", key);
        return load(key, "read")
                .filter(snapshot -> !snapshot.isTombstone())
                .map(snapshot -> new StoredValue(key, Objects.requireNonNull(snapshot.value()), snapshot.token()));
    }

    @Override
    public StoredValue update(FencingToken token, String key, Function<Optional<String>, String> change) {
        checkKeyAndToken(key, token);
        Checks.requireNonNull("change", change);
        StoredValue written;
        try {
            written = updateWith(accessor, key, token, change);
        } catch (RuntimeException e) {
            throw failed(key, "update", e);
        }
        listener.onWriteAccepted(token, key);
        return written;
    }

    private <V> StoredValue updateWith(StorageAccessor<V> typed, String key, FencingToken token,
            Function<Optional<String>, String> change) {
        for (int attempt = 0; attempt < maxUpdateAttempts; attempt++) {
            Snapshot<V> current = typed.load(key).orElse(null);
            if (current != null && current.fencedByAnotherLockThan(token)) {
                throw ForeignTokenException.of(key, token, Objects.requireNonNull(current.resource()));
            }
            if (current != null && !policy.accepts(token.value(), current.token())) {
                throw rejected(key, token, current.token());
            }
            Optional<String> value = Optional.ofNullable(current).map(Snapshot::value);
            String next = change.apply(value);
            if (next == null) {
                throw new IllegalArgumentException("the change function of update('" + key + "') returned null;"
                        + " return a value, or use delete to remove the item");
            }
            WriteOutcome outcome = typed.writeIfUnchanged(key, current, next, token, policy);
            if (outcome.status() != WriteOutcome.Status.CONFLICT) {
                ensureWritten(key, token, outcome);
                return new StoredValue(key, next, token.value());
            }
        }
        throw ConcurrentUpdateException.gaveUp(key, maxUpdateAttempts);
    }

    @Override
    public void delete(FencingToken token, String key) {
        checkKeyAndToken(key, token);
        try {
            ensureWritten(key, token, accessor.write(key, null, token, policy));
        } catch (RuntimeException e) {
            throw failed(key, "delete", e);
        }
        listener.onWriteAccepted(token, key);
    }

    /**
     * A write's failure as the caller sees it: the server's silence as {@link StoreUnavailableException},
     * told to the listener unless it is a stale token (reported where it is refused) or not the
     * toolkit's (bad input, the change function's own exception).
     */
    private RuntimeException failed(String key, String operation, RuntimeException failure) {
        RuntimeException seen = unavailableIfUnanswered(key, operation, failure);
        if (seen instanceof FencingException fencing && !(seen instanceof StaleTokenException)) {
            listener.onWriteFailed(key, fencing);
        }
        return seen;
    }

    private RuntimeException unavailableIfUnanswered(String key, String operation, RuntimeException failure) {
        if (failure instanceof FencingException || !accessor.unanswered(failure)) {
            return failure;
        }
        return StoreUnavailableException.of(accessor.server(), operation, key, failure);
    }

    private Optional<? extends Snapshot<?>> load(String key, String operation) {
        try {
            return accessor.load(key);
        } catch (RuntimeException e) {
            throw unavailableIfUnanswered(key, operation, e);
        }
    }

    @Override
    public OptionalLong highWaterMark(String key) {
        Checks.requireName("key", key);
        return load(key, "highWaterMark").map(s -> OptionalLong.of(s.token())).orElse(OptionalLong.empty());
    }

    @Override
    public Policy policy() {
        return policy;
    }

    private void ensureWritten(String key, FencingToken token, WriteOutcome outcome) {
        switch (outcome.status()) {
            case WRITTEN:
                return;
            case STALE:
                long mark = outcome.highWaterMark() >= 0
                        ? outcome.highWaterMark()
                        : accessor.load(key).map(Snapshot::token).orElse(0L);
                throw rejected(key, token, mark);
            case FOREIGN:
                throw ForeignTokenException.of(key, token, Objects.requireNonNull(outcome.boundResource(),
                        "a FOREIGN outcome names the resource bound to the key"));
            default:
                throw new IllegalStateException("store accessor " + accessor.getClass().getName()
                        + " answered " + outcome + " to an unconditional write of '" + key + "'");
        }
    }

    private StaleTokenException rejected(String key, FencingToken token, long mark) {
        return Refusals.reported(listener, StaleTokenException.of(key, token, mark, policy));
    }

    private static void checkKeyAndToken(String key, FencingToken token) {
        Checks.requireName("key", key);
        Checks.requireNonNull("token", token);
    }
}
