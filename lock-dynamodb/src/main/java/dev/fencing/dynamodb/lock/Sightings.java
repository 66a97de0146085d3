package dev.fencing.dynamodb.lock;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What a provider's waiters saw of held locks, for {@link DynamoDbLockProvider.Expiry#OWN_CLOCK}:
 * per resource, the holder's item version, when it was first and last seen (the waiter's monotonic
 * clock, read after the reply that showed it, so after the holder's write) and the lease it
 * announced. A lock may be taken over once the same version has been seen for a whole lease by a
 * waiter that kept looking: one that did not look for longer than the lease (and at least a second)
 * starts counting again, as a restore may have brought an old version back in between.
 */
final class Sightings {

    /** How many resources are remembered (the least recently seen are forgotten). */
    private static final int MAX_SIGHTINGS = 10_000;
    private static final long MIN_GAP_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<String, Sighting> seen = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Sighting> eldest) {
            return size() > MAX_SIGHTINGS;
        }
    });

    /** The sighting of {@code resource}'s holder if it stayed unchanged for its whole lease, else null. */
    @Nullable Sighting elapsed(String resource, long nowNanos) {
        Sighting sighting = seen.get(resource);
        return sighting != null && sighting.recent(nowNanos) && sighting.elapsed(nowNanos) ? sighting : null;
    }

    /**
     * Records a look at {@code resource}'s held item: the same item seen at the last look, not longer
     * ago than the gap, keeps its first sighting; anything else starts counting at {@code nowNanos}.
     */
    Sighting sight(String resource, Sighting now) {
        return seen.merge(resource, now, (before, after) -> before.sameItem(after) && before.recent(after.lastSeenAtNanos())
                ? new Sighting(before.version(), before.owner(), before.expires(), before.seenAtNanos(),
                        after.lastSeenAtNanos(), before.leaseNanos())
                : after);
    }

    void forget(String resource) {
        seen.remove(resource);
    }

    /**
     * A held item as a waiter saw it: its version (or, for an item written without one, its owner
     * and expiry), when it was first and last seen, and the lease it announced.
     */
    record Sighting(@Nullable String version, String owner, long expires, long seenAtNanos, long lastSeenAtNanos,
            long leaseNanos) {

        boolean sameItem(Sighting other) {
            return version != null ? version.equals(other.version)
                    : other.version == null && owner.equals(other.owner) && expires == other.expires;
        }

        /** Whether the last look was at most a lease (and at least a second) before {@code nowNanos}. */
        boolean recent(long nowNanos) {
            return nowNanos - lastSeenAtNanos - Math.max(leaseNanos, MIN_GAP_NANOS) <= 0;
        }

        boolean elapsed(long nowNanos) {
            return nowNanos - seenAtNanos - leaseNanos >= 0;
        }

        /** The grant's condition that the item is still this one, adding its values to {@code values}. */
        String condition(Map<String, AttributeValue> values) {
            if (version != null) {
                values.put(":seenVersion", AttributeValue.fromS(version));
                return "#version = :seenVersion";
            }
            values.put(":seenOwner", AttributeValue.fromS(owner));
            values.put(":seenExpires", AttributeValue.fromN(Long.toString(expires)));
            return "(attribute_not_exists(#version) AND #owner = :seenOwner AND #expires = :seenExpires)";
        }
    }
}
