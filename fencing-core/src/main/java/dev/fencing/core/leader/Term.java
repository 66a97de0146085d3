package dev.fencing.core.leader;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.internal.Checks;
import java.time.Instant;

/**
 * One term of office: the lease that made a candidate leader, and its token, the term's epoch.
 *
 * <p>Pass {@link #epoch()} with every write the leader makes; a fenced store refuses it once a
 * later leader has written with its own, greater epoch. Epochs of one lock strictly increase from
 * term to term, as far as the provider's tokens do.
 *
 * @param epoch the fencing token of the term's lease
 * @param lease the lease held for the term; the {@link Leadership} renews and releases it, so do not
 *     release it yourself unless you mean to end the term
 * @param electedAt the wall-clock time of the election, for display and logs only
 */
public record Term(FencingToken epoch, Lease lease, Instant electedAt) {

    /** Validates the components; throws {@link IllegalArgumentException} naming the bad one. */
    public Term {
        Checks.requireNonNull("epoch", epoch);
        Checks.requireNonNull("lease", lease);
        Checks.requireNonNull("electedAt", electedAt);
        if (!lease.token().equals(epoch)) {
            throw new IllegalArgumentException("a term's epoch must be its lease's token, got epoch " + epoch
                    + " for a lease with token " + lease.token());
        }
    }

    /** Whether the term's lease is still valid by this process's monotonic clock: {@link Lease#isValid()}. */
    public boolean isValid() {
        return lease.isValid();
    }

    @Override
    public String toString() {
        return "Term[epoch " + epoch + ", elected at " + electedAt + "]";
    }
}
