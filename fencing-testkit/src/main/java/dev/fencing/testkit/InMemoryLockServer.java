package dev.fencing.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The shared state behind {@link InMemoryLockProvider}s: holders and token counters per
 * resource. Several providers connected to one server behave like several processes using one
 * lock server.
 */
public final class InMemoryLockServer {

    private record Holder(String ownerId, long expiresAtNanos) {}

    private final Map<String, Holder> holders = new HashMap<>();
    private final Map<String, Long> tokens = new HashMap<>();
    private final CopyOnWriteArrayList<Consumer<String>> releaseListeners = new CopyOnWriteArrayList<>();
    private volatile boolean unreachable;
    private volatile boolean losingReplies;

    /**
     * Cuts the server off: every later call of a connected provider fails with
     * {@link dev.fencing.core.LockUnavailableException} as a real server's client would, until
     * {@link #reconnect()}. Locks and tokens are kept.
     */
    public void disconnect() {
        unreachable = true;
    }

    /** Answers again after {@link #disconnect()}. */
    public void reconnect() {
        unreachable = false;
    }

    /**
     * From now on (until {@link #answerAgain()}) a lock request is carried out but its answer is
     * lost: the provider's attempt fails with {@link dev.fencing.core.LockUnavailableException}
     * after the server may have granted the lock — the unclear reply of a real server.
     */
    public void loseAcquireReplies() {
        losingReplies = true;
    }

    /** Lock requests are answered again after {@link #loseAcquireReplies()}. */
    public void answerAgain() {
        losingReplies = false;
    }

    private void requireReachable(String resource) {
        if (unreachable) {
            throw dev.fencing.core.LockUnavailableException.unreachable(resource, "the in-memory lock server is"
                    + " disconnected", null);
        }
    }

    /** Takes the lock for {@code ownerId} if free or expired; returns the new token, or 0 if held. */
    synchronized long tryLock(String resource, String ownerId, long nowNanos, long expiresAtNanos) {
        requireReachable(resource);
        Holder holder = holders.get(resource);
        if (holder != null && holder.expiresAtNanos - nowNanos > 0) {
            return 0;
        }
        holders.put(resource, new Holder(ownerId, expiresAtNanos));
        long token = tokens.merge(resource, 1L, Long::sum);
        if (losingReplies) {
            throw dev.fencing.core.LockUnavailableException.unreachable(resource, "the in-memory lock server's reply"
                    + " was lost (it may have granted the lock)", null);
        }
        return token;
    }

    /** Extends the lock if {@code ownerId} holds it and it has not expired. */
    synchronized boolean renew(String resource, String ownerId, long nowNanos, Duration ttl) {
        requireReachable(resource);
        Holder holder = holders.get(resource);
        if (holder == null || !holder.ownerId.equals(ownerId) || holder.expiresAtNanos - nowNanos <= 0) {
            return false;
        }
        holders.put(resource, new Holder(ownerId, nowNanos + ttl.toNanos()));
        return true;
    }

    /** Frees the lock if {@code ownerId} holds it and it has not expired, and tells connected providers. */
    boolean unlock(String resource, String ownerId, long nowNanos) {
        if (unreachable) {
            return false; // like a release whose reply never came: the lock lapses on its TTL
        }
        boolean held;
        synchronized (this) {
            Holder holder = holders.get(resource);
            held = holder != null && holder.ownerId.equals(ownerId) && holder.expiresAtNanos - nowNanos > 0;
            if (held) {
                holders.remove(resource);
            }
        }
        if (held) {
            releaseListeners.forEach(listener -> listener.accept(resource));
        }
        return held;
    }

    void onRelease(Consumer<String> listener) {
        releaseListeners.add(listener);
    }

    void removeReleaseListener(Consumer<String> listener) {
        releaseListeners.remove(listener);
    }
}
