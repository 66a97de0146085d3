package dev.fencing.testkit.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lease rule of the history checks: on one lock, no lease may be told valid more than a
 * provider's stated bound after a lease with a higher token was granted. Fencing makes the store
 * refuse the older holder's writes either way; this rule catches the provider that lets two
 * holders believe at once, which the store's checks cannot see (a holder that does work beside
 * the fenced store, say).
 *
 * <p>Only certain overlaps count: the newer lease from the moment its acquire returned, the older
 * one until a check that said valid was invoked.
 */
public final class LeaseOverlapChecker {

    private LeaseOverlapChecker() {}

    /**
     * The overlaps longer than {@code bound}: for each lease, the one with a lower token that was
     * told valid longest after it was granted, if that is beyond the bound; in token order per lock.
     *
     * @throws IllegalArgumentException if {@code bound} is negative
     */
    public static List<LeaseOverlap> check(Collection<LeaseSpan> spans, Duration bound) {
        if (bound.isNegative()) {
            throw new IllegalArgumentException("bound must not be negative, got " + bound);
        }
        Map<String, List<LeaseSpan>> byLock = new TreeMap<>();
        spans.forEach(span -> byLock.computeIfAbsent(span.lock(), lock -> new ArrayList<>()).add(span));
        List<LeaseOverlap> overlaps = new ArrayList<>();
        for (List<LeaseSpan> leases : byLock.values()) {
            leases.sort(Comparator.comparingLong(LeaseSpan::token));
            LeaseSpan longest = null; // of the lower tokens, the one told valid last
            int i = 0;
            while (i < leases.size()) {
                int sameToken = i;
                while (sameToken < leases.size() && leases.get(sameToken).token() == leases.get(i).token()) {
                    LeaseSpan newer = leases.get(sameToken);
                    if (longest != null) {
                        long overlap = longest.lastValidNanos() - newer.grantedNanos();
                        if (overlap > bound.toNanos()) {
                            overlaps.add(new LeaseOverlap(longest, newer, Duration.ofNanos(overlap)));
                        }
                    }
                    sameToken++;
                }
                for (int j = i; j < sameToken; j++) {
                    LeaseSpan span = leases.get(j);
                    if (longest == null || span.lastValidNanos() - longest.lastValidNanos() > 0) {
                        longest = span;
                    }
                }
                i = sameToken;
            }
        }
        return overlaps;
    }
}
