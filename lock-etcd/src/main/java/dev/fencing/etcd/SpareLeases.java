package dev.fencing.etcd;

import dev.fencing.core.MonotonicClock;
import io.etcd.jetcd.Lease;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * One etcd lease granted ahead of need, per lease TTL, so that an acquire waits for one etcd
 * write — its transaction — instead of two (a lease grant, then the transaction). After each
 * acquire that used or wanted a spare, the next one is granted in the background.
 *
 * <p>A spare's etcd TTL started when its grant was sent, so a lease built on it counts its local
 * validity from then ({@link Spare#requestedAtNanos}), never from the later acquire: the local
 * validity still ends before etcd can expire the key. A spare older than the caller's limit is
 * revoked instead of used, so a lease never starts with much less than its TTL. Spares nobody
 * takes expire with their TTL; {@link #close()} revokes them.
 *
 * <p>Thread-safe. At most {@value #MAX_TTLS} distinct TTLs keep a spare; others are granted on
 * demand.
 */
final class SpareLeases {

    static final int MAX_TTLS = 16;

    /** A granted lease nobody holds yet. */
    record Spare(long leaseId, long ttlSeconds, long requestedAtNanos) {}

    private final Lease leases;
    private final MonotonicClock clock;
    private final LongConsumer revoke;
    private final Map<Long, AtomicReference<Spare>> spares = new ConcurrentHashMap<>();
    private final Map<Long, Boolean> refilling = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** @param revoke revokes a lease nobody will use, in the background */
    SpareLeases(Lease leases, MonotonicClock clock, LongConsumer revoke) {
        this.leases = leases;
        this.clock = clock;
        this.revoke = revoke;
    }

    /**
     * A spare lease of {@code ttlSeconds} granted at most {@code maxAgeNanos} ago, or empty; asks
     * for the next spare in the background either way.
     */
    Optional<Spare> take(long ttlSeconds, long maxAgeNanos) {
        if (closed) {
            return Optional.empty();
        }
        AtomicReference<Spare> slot = spares.get(ttlSeconds);
        if (slot == null) {
            if (spares.size() >= MAX_TTLS) {
                return Optional.empty();
            }
            slot = spares.computeIfAbsent(ttlSeconds, ttl -> new AtomicReference<>());
        }
        Spare spare = slot.getAndSet(null);
        refill(ttlSeconds, slot);
        if (spare != null && clock.nanoTime() - spare.requestedAtNanos() > maxAgeNanos) {
            revoke.accept(spare.leaseId());
            return Optional.empty();
        }
        return Optional.ofNullable(spare);
    }

    private void refill(long ttlSeconds, AtomicReference<Spare> slot) {
        if (refilling.putIfAbsent(ttlSeconds, Boolean.TRUE) != null) {
            return; // one grant in flight per TTL is enough
        }
        long requestedAt = clock.nanoTime();
        try {
            leases.grant(ttlSeconds).whenComplete((grant, failure) -> {
                refilling.remove(ttlSeconds);
                if (grant == null) {
                    return; // no spare this time: the next acquire grants its own
                }
                Spare replaced = slot.getAndSet(new Spare(grant.getID(), grant.getTTL(), requestedAt));
                if (replaced != null) {
                    revoke.accept(replaced.leaseId());
                }
                if (closed) {
                    Spare left = slot.getAndSet(null);
                    if (left != null) {
                        revoke.accept(left.leaseId());
                    }
                }
            });
        } catch (RuntimeException e) {
            refilling.remove(ttlSeconds); // the client is closing
        }
    }

    /** Revokes the spares not taken; grants still in flight revoke theirs when they complete. */
    void close() {
        closed = true;
        for (AtomicReference<Spare> slot : spares.values()) {
            Spare left = slot.getAndSet(null);
            if (left != null) {
                revoke.accept(left.leaseId());
            }
        }
    }
}
