package dev.fencing.testkit.history;

import java.time.Duration;

/**
 * Two leases on one lock valid at once: {@code older} (the lower token) was told valid
 * {@code overlap} after {@code newer} had been granted.
 *
 * @param older the lease with the lower token, still believed valid
 * @param newer the lease with the higher token, already granted
 * @param overlap how long both were valid, at least
 */
public record LeaseOverlap(LeaseSpan older, LeaseSpan newer, Duration overlap) {

    @Override
    public String toString() {
        return "lock '" + older.lock() + "': " + older.holder() + "'s lease (token " + older.token()
                + ") was told valid " + overlap.toMillis() + " ms after " + newer.holder() + "'s (token "
                + newer.token() + ") was granted";
    }
}
