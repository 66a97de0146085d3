package dev.fencing.core;

/**
 * Which tokens a store accepts, given the highest token it has accepted so far (its
 * high-water mark) for the item being written.
 */
public enum Policy {
    /**
     * Accepts {@code token >= mark}: the current holder may write many times under one lease.
     * The default.
     */
    MONOTONIC,
    /**
     * Accepts only {@code token > mark}: every write needs a fresh grant. Use it where one write
     * per lease is the protocol (a leader publishing one epoch, an idempotency guard).
     */
    STRICT;

    /** Whether a write carrying {@code token} may land on an item whose mark is {@code mark}. */
    public boolean accepts(long token, long mark) {
        return this == STRICT ? token > mark : token >= mark;
    }
}
