package dev.fencing.etcd;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The etcd revisions a provider has seen: the newest any answer showed it — grants, keep-alives,
 * reads, listings, watch events — against which a grant at or below it, or a linearizable answer
 * below it, means etcd's history went back (a restore); and per resource the revision its last
 * failed attempt saw, from which a watch misses nothing. Thread-safe.
 */
final class EtcdRevisions {

    private final AtomicLong newest = new AtomicLong();
    private final Map<String, Long> lastFailedAttempt = new ConcurrentHashMap<>();

    /** Raises the high-water mark to {@code revision}, the revision of an answer. */
    void seen(long revision) {
        newest.accumulateAndGet(revision, Math::max);
    }

    /** The newest revision seen so far. */
    long newest() {
        return newest.get();
    }

    /** An attempt on {@code resource} found it held, at {@code revision}. */
    void heldAt(String resource, long revision) {
        lastFailedAttempt.put(resource, revision);
        seen(revision);
    }

    /** The revision {@code resource}'s last failed attempt saw, 0 if none did. */
    long lastFailedAttempt(String resource) {
        return lastFailedAttempt.getOrDefault(resource, 0L);
    }
}
