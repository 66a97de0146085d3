package dev.fencing.etcd.internal;

import java.time.Duration;

/**
 * The TTL, in whole seconds, of the etcd lease behind a lease of {@code ttl}: etcd counts lease
 * TTLs in seconds, so the server's TTL is {@code ttl} plus a margin for the server's clock
 * running fast (1% + 2 ms), rounded up to the next second. The local validity stays {@code ttl}
 * from before the request: it always ends before the server lets the key go.
 */
public final class ServerTtl {

    private ServerTtl() {}

    /** The etcd lease TTL in seconds for a lease of {@code ttl}; at least 1. */
    public static long seconds(Duration ttl) {
        long millis = ttl.toMillis();
        long withMargin = millis + millis / 100 + 2;
        return Math.max(1, (withMargin + 999) / 1000);
    }
}
