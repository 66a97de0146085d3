package dev.fencing.cli.commands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the candidates of a leadership torture run believed, and when: each sighting of
 * {@code isLeader()} true, with the clock read before and after it. A term was certainly believed
 * from the "after" of its first sighting to the "before" of its last, so the checks below never
 * report a violation that did not happen (a busy machine can only hide one):
 * <ol>
 *   <li>one leader per epoch: no epoch believed by two candidates;
 *   <li>no two beliefs at once: no two terms certainly believed at a common instant;
 *   <li>epochs increase: no term certainly believed before a term of a smaller epoch was.
 * </ol>
 * Rule 1 holds whatever the lock server loses. So does rule 3 beyond one TTL: a term granted before
 * a fault that lost the grants may still be believed, for the rest of its lease's validity, after a
 * newer term began (renewals fail once its key is gone), but never more than a TTL after the newer
 * term was first believed — a smaller epoch believed later than that was granted after it: the
 * tokens went backwards.
 * Thread-safe.
 */
final class LeadershipHistory {

    /** One term as sighted: its candidate, its epoch, the certain span of its belief (monotonic nanos). */
    record Sighted(String candidate, long epoch, long firstAfter, long lastBefore) {}

    private final long ttlNanos;
    private final Map<Long, Sighted> terms = new HashMap<>();

    /** @param ttl the TTL of the candidates' leases: how long a term can outlive a lost grant */
    LeadershipHistory(Duration ttl) {
        this.ttlNanos = ttl.toNanos();
    }
    private final List<String> violations = new ArrayList<>();

    /** {@code candidate} saw itself lead with {@code epoch} in a call between {@code before} and {@code after}. */
    synchronized void sighted(String candidate, long epoch, long before, long after) {
        Sighted known = terms.get(epoch);
        if (known == null) {
            terms.put(epoch, new Sighted(candidate, epoch, after, before));
        } else if (!known.candidate().equals(candidate)) {
            violations.add("epoch " + epoch + " led by both " + known.candidate() + " and " + candidate);
        } else {
            terms.put(epoch, new Sighted(candidate, epoch, Math.min(known.firstAfter(), after),
                    Math.max(known.lastBefore(), before)));
        }
    }

    /** The terms sighted, in epoch order. */
    synchronized List<Sighted> terms() {
        List<Sighted> all = new ArrayList<>(terms.values());
        all.sort(Comparator.comparingLong(Sighted::epoch));
        return all;
    }

    /** Every violation of the three rules, described. */
    synchronized List<String> violations() {
        List<String> found = epochViolations();
        found.addAll(overlaps());
        return found;
    }

    /** The violations of rule 1, and of rule 3 beyond one TTL, which hold whatever the lock server loses. */
    synchronized List<String> epochViolations() {
        return check(false);
    }

    /**
     * The violations of rules 2 and 3, which hold only while the lock server keeps its grants: a
     * fault that loses them (a restart without data, a session ended on the server) can let a new
     * leader be elected before the old one's next renewal finds its lock gone, so the old term
     * (a smaller epoch) is still believed, for the rest of its lease's validity, while or after the
     * new one is — and the store's check is then what refuses the old leader.
     */
    synchronized List<String> overlaps() {
        return check(true);
    }

    private List<String> check(boolean overlaps) {
        List<String> found = new ArrayList<>(overlaps ? List.of() : violations);
        List<Sighted> all = terms();
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                Sighted older = all.get(i);
                Sighted newer = all.get(j);
                boolean overlap = Math.max(older.firstAfter(), newer.firstAfter())
                        <= Math.min(older.lastBefore(), newer.lastBefore());
                if (overlap && overlaps) {
                    found.add(older.candidate() + " (epoch " + older.epoch() + ") and " + newer.candidate() + " (epoch "
                            + newer.epoch() + ") both believed they led at once");
                } else if (!overlap && newer.firstAfter() < older.lastBefore()) {
                    boolean beyondATtl = older.lastBefore() - newer.firstAfter() > ttlNanos;
                    if (overlaps != beyondATtl) {
                        found.add("epoch " + newer.epoch() + " (" + newer.candidate() + ") led before epoch "
                                + older.epoch() + " (" + older.candidate() + ") did"
                                + (beyondATtl ? ", more than a TTL later" : ""));
                    }
                }
            }
        }
        return found;
    }
}
