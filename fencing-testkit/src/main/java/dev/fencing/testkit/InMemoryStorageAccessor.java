package dev.fencing.testkit;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.net.SocketException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link StorageAccessor} of {@link InMemoryFencedStore}: each conditional write atomic under
 * one monitor; versions a per-memory counter.
 */
final class InMemoryStorageAccessor implements StorageAccessor<Long> {

    private final Map<String, Snapshot<Long>> items = new HashMap<>();
    private long versions;
    private @Nullable Runnable loseNextReply;
    private int lostReplies;

    @Override
    public synchronized Optional<Snapshot<Long>> load(String key) {
        return Optional.ofNullable(items.get(key));
    }

    /**
     * Simulates a reply lost after the store acted, for the contract's lost-reply cases: the next
     * write to this memory is carried out, then {@code inTheWindow} runs (another writer), then the
     * writer is told {@link WriteOutcomeUnknownException} — what a store that cannot prove its own
     * write must say.
     */
    synchronized void loseNextWriteReply(Runnable inTheWindow) {
        loseNextReply = Checks.requireNonNull("inTheWindow", inTheWindow);
    }

    /** How many replies {@link #loseNextWriteReply} lost so far. */
    synchronized int lostReplies() {
        return lostReplies;
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        Runnable lost;
        WriteOutcome outcome;
        synchronized (this) {
            outcome = carryOutWrite(key, value, token, policy);
            lost = takeLostReply();
        }
        return reply(key, outcome, lost);
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, @Nullable String value,
            FencingToken token, Policy policy) {
        Runnable lost;
        WriteOutcome outcome;
        synchronized (this) {
            outcome = carryOutWriteIfUnchanged(key, expected, value, token, policy);
            lost = takeLostReply();
        }
        return reply(key, outcome, lost);
    }

    private @Nullable Runnable takeLostReply() {
        Runnable lost = loseNextReply;
        if (lost != null) {
            loseNextReply = null;
            lostReplies++;
        }
        return lost;
    }

    /** The outcome, or — the reply lost — the window run outside the monitor and the unknown outcome. */
    private static WriteOutcome reply(String key, WriteOutcome outcome, @Nullable Runnable lost) {
        if (lost == null) {
            return outcome;
        }
        lost.run();
        throw WriteOutcomeUnknownException.of(key, new SocketException(
                "Connection reset (a lost reply, simulated by InMemoryStorage)"));
    }

    private WriteOutcome carryOutWrite(String key, @Nullable String value, FencingToken token, Policy policy) {
        Snapshot<Long> current = items.get(key);
        if (current != null && current.fencedByAnotherLockThan(token)) {
            return WriteOutcome.foreign(Objects.requireNonNull(current.resource(),
                    "a snapshot fenced by another lock keeps that lock's name"));
        }
        if (current != null && !policy.accepts(token.value(), current.token())) {
            return WriteOutcome.stale(current.token());
        }
        items.put(key, new Snapshot<>(value, token.value(), token.resource(), ++versions));
        return WriteOutcome.written();
    }

    private WriteOutcome carryOutWriteIfUnchanged(String key, @Nullable Snapshot<Long> expected, @Nullable String value,
            FencingToken token, Policy policy) {
        Snapshot<Long> current = items.get(key);
        if (current != null && current.fencedByAnotherLockThan(token)) {
            return WriteOutcome.foreign(Objects.requireNonNull(current.resource(),
                    "a snapshot fenced by another lock keeps that lock's name"));
        }
        if (current != null && !policy.accepts(token.value(), current.token())) {
            return WriteOutcome.stale(current.token());
        }
        Long currentVersion = current == null ? null : current.version();
        Long expectedVersion = expected == null ? null : expected.version();
        if (!Objects.equals(currentVersion, expectedVersion)) {
            return WriteOutcome.conflict();
        }
        items.put(key, new Snapshot<>(value, token.value(), token.resource(), ++versions));
        return WriteOutcome.written();
    }
}
