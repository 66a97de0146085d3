package dev.fencing.core.leader;

import dev.fencing.core.internal.Checks;

/**
 * Hears the terms of one {@link Leadership}. Every term starts with exactly one
 * {@link #onElected} and ends with exactly one {@link #onRevoked}, in that order; calls for one
 * leadership never overlap. They run on a shared worker thread of the toolkit, not the caller's:
 * keep them short, and hand long work (the leader's job) to a thread of your own.
 *
 * <p>The callbacks report, they do not decide: a callback can arrive late (the process paused, the
 * worker was busy), so test {@link Leadership#isLeader()} or {@link Term#isValid()} before acting
 * and fence every write with {@link Term#epoch()}. An exception thrown by a callback is logged and
 * otherwise ignored.
 */
public interface LeadershipListener {

    /** A listener that does nothing. */
    LeadershipListener NONE = new LeadershipListener() {};

    /**
     * One listener that calls each of {@code listeners} in turn, in this order; one that throws is
     * logged and the others are still called.
     *
     * @throws IllegalArgumentException if {@code listeners} or one of them is null
     */
    static LeadershipListener all(LeadershipListener... listeners) {
        return CompositeLeadershipListener.of(java.util.Arrays.asList(Checks.requireNonNull("listeners", listeners)));
    }

    /** As {@link #all(LeadershipListener...)}, for a list (several Spring beans, say). */
    static LeadershipListener all(java.util.List<? extends LeadershipListener> listeners) {
        Checks.requireNonNull("listeners", listeners);
        return CompositeLeadershipListener.of(listeners);
    }

    /** This candidate was elected for {@code term}. */
    default void onElected(Term term) {}

    /**
     * {@code term} has ended: from now on {@link Leadership#isLeader()} is false for it. Its lease
     * was no longer valid (or was released) before this call.
     */
    default void onRevoked(Term term, RevocationReason reason) {}
}
