package dev.fencing.core.leader;

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

    /** This candidate was elected for {@code term}. */
    default void onElected(Term term) {}

    /**
     * {@code term} has ended: from now on {@link Leadership#isLeader()} is false for it. Its lease
     * was no longer valid (or was released) before this call.
     */
    default void onRevoked(Term term, RevocationReason reason) {}
}
