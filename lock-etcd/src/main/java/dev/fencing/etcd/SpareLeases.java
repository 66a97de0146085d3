package dev.fencing.etcd;

import dev.fencing.core.MonotonicClock;
import io.etcd.jetcd.Lease;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * etcd leases granted ahead of need, per lease TTL, so that an acquire waits for one etcd write —
 * its transaction — instead of two (a lease grant, then the transaction). A released lease whose
 * key its own release deleted holds nothing and goes back here ({@link #offer}); an acquire that
 * finds no spare grants its own and has one more granted in the background. In steady state a
 * lock cycle therefore costs etcd two writes, the create and the delete, like jetcd's own Lock
 * service on one long-lived lease.
 *
 * <p>A spare's etcd TTL started when the request that last set it was sent (its grant, or its
 * previous holder's last keep-alive), so a lease built on it counts its local validity from then
 * ({@link Spare#requestedAtNanos}), never from the later acquire: the local validity still ends
 * before etcd can expire the key. A spare older than the caller's limit is revoked instead of
 * used, so a lease never starts with much less than its TTL. Spares nobody takes expire with
 * their TTL; {@link #close()} revokes them.
 *
 * <p>Thread-safe. At most {@value #MAX_TTLS} distinct TTLs keep spares, at most
 * {@value #MAX_PER_TTL} each; beyond that, leases are granted on demand and revoked after use.
 */
final class SpareLeases {

    static final int MAX_TTLS = 16;
    static final int MAX_PER_TTL = 32;

    /** A granted lease nobody holds, and the start of the request that last set its etcd TTL. */
    record Spare(long leaseId, long ttlSeconds, long requestedAtNanos) {}

    private final Lease leases;
    private final MonotonicClock clock;
    private final LongConsumer revoke;
    private final Map<Long, Deque<Spare>> spares = new ConcurrentHashMap<>();
    private final Map<Long, Boolean> refilling = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** @param revoke revokes a lease nobody will use, in the background */
    SpareLeases(Lease leases, MonotonicClock clock, LongConsumer revoke) {
        this.leases = leases;
        this.clock = clock;
        this.revoke = revoke;
    }

    /**
     * The freshest spare lease of {@code ttlSeconds}, granted or kept alive at most
     * {@code maxAgeNanos} ago; empty if there is none, and then one more is granted in the
     * background for the next acquire.
     */
    Optional<Spare> take(long ttlSeconds, long maxAgeNanos) {
        Deque<Spare> line = closed ? null : line(ttlSeconds);
        if (line == null) {
            return Optional.empty();
        }
        Spare spare;
        while ((spare = line.pollLast()) != null) {
            if (clock.nanoTime() - spare.requestedAtNanos() <= maxAgeNanos) {
                return Optional.of(spare);
            }
            revoke.accept(spare.leaseId()); // too old: every spare below it is older still
        }
        refill(ttlSeconds, line);
        return Optional.empty();
    }

    /**
     * Keeps {@code lease} — released, holding no key — for the next acquire of its TTL instead of
     * a revoke now and a grant later. {@link Spare#requestedAtNanos} must be the start of the
     * request that last set its etcd TTL.
     */
    void offer(Spare lease) {
        Deque<Spare> line = closed ? null : line(lease.ttlSeconds());
        if (line == null || line.size() >= MAX_PER_TTL) {
            revoke.accept(lease.leaseId());
            return;
        }
        line.addLast(lease);
        if (closed) {
            drain(line);
        }
    }

    private @Nullable Deque<Spare> line(long ttlSeconds) {
        Deque<Spare> line = spares.get(ttlSeconds);
        if (line == null && spares.size() < MAX_TTLS) {
            line = spares.computeIfAbsent(ttlSeconds, ttl -> new ConcurrentLinkedDeque<>());
        }
        return line;
    }

    private void refill(long ttlSeconds, Deque<Spare> line) {
        if (refilling.putIfAbsent(ttlSeconds, Boolean.TRUE) != null) {
            return; // one grant in flight per TTL is enough
        }
        long requestedAt = clock.nanoTime();
        try {
            leases.grant(ttlSeconds).whenComplete((grant, failure) -> {
                refilling.remove(ttlSeconds);
                if (grant != null) {
                    offer(new Spare(grant.getID(), grant.getTTL(), requestedAt));
                }
            });
        } catch (RuntimeException e) {
            refilling.remove(ttlSeconds); // the client is closing
        }
    }

    private void drain(Deque<Spare> line) {
        Spare left;
        while ((left = line.pollFirst()) != null) {
            revoke.accept(left.leaseId());
        }
    }

    /** Revokes the spares not taken; grants still in flight revoke theirs when they complete. */
    void close() {
        closed = true;
        spares.values().forEach(this::drain);
    }
}
