package dev.fencing.zookeeper;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The earliest moment the ensemble may end one session, from the requests of that session the
 * leader confirmed; a lease of the session counts as valid no longer.
 *
 * <p>The leader ends a session one session timeout after the last time it heard of the client, and
 * it hears of a follower's clients only when it pings that follower: every half tick, the follower
 * answers with the sessions its clients touched since. A request that reached the follower is
 * therefore known to the leader once the next ping went by — at most half a tick after it was
 * answered, as long as the follower still reached the leader then. That is proven by a later request
 * confirmed through the leader (a {@code sync}), sent at least half a tick after the earlier one
 * was answered. The bound is the start of the latest request proven heard that way, plus the session
 * timeout, minus a margin for the servers' clocks running faster than this one's.
 *
 * <p>The session's creation counts as heard at once: the leader creates the session itself. A
 * reconnect negotiates the timeout again (each server clamps it to its own limits): the bound then
 * counts with the shortest seen. Not thread-safe on its own: the provider calls it holding its lock.
 */
final class SessionBound {

    private final long sessionId;
    private long timeoutNanos;
    private long lagNanos;
    private long driftNanos;
    private long heardStart;
    /**
     * Confirmed requests not yet proven heard, {start, answered}, oldest first; none of them is
     * dominated by the one after it (a later start answered no later). A proof takes them from the
     * front only, so each is looked at a bounded number of times: with a request per millisecond and
     * a 1 s tick, a scan of the whole list per grant took about 5 % of the caller's CPU samples.
     */
    private final Deque<long[]> unproven = new ArrayDeque<>();

    /**
     * @param sessionId the session
     * @param sessionTimeout the negotiated session timeout
     * @param tickTime the server's tick (at most), whose half is the follower's touch lag
     * @param createdFrom a clock reading from before the session was asked for
     */
    SessionBound(long sessionId, Duration sessionTimeout, Duration tickTime, long createdFrom) {
        this.sessionId = sessionId;
        this.timeoutNanos = sessionTimeout.toNanos();
        this.lagNanos = tickTime.toNanos() / 2;
        this.driftNanos = driftMargin(sessionTimeout).toNanos();
        this.heardStart = createdFrom;
    }

    /** The margin for the servers' clocks: 1% of the session timeout, at least 10 ms. */
    static Duration driftMargin(Duration sessionTimeout) {
        return Duration.ofNanos(Math.max(Duration.ofMillis(10).toNanos(), sessionTimeout.toNanos() / 100));
    }

    long sessionId() {
        return sessionId;
    }

    /** The shortest session timeout negotiated in this session so far: the one the bound counts with. */
    Duration sessionTimeout() {
        return Duration.ofNanos(timeoutNanos);
    }

    /**
     * The session was negotiated again, at a reconnect, to {@code sessionTimeout}: the server reached
     * clamps the client's request to its own limits, and the leader ends the session on what that
     * server reports. The bound keeps the shorter of the two timeouts from now on (the leader may
     * already count the new one from a touch before this call), the new server's tick for later
     * proofs (requests from before were touched again by the reconnect's revalidation at the leader),
     * and the larger clock margin.
     */
    void renegotiated(Duration sessionTimeout, Duration tickTime) {
        timeoutNanos = Math.min(timeoutNanos, sessionTimeout.toNanos());
        lagNanos = tickTime.toNanos() / 2;
        driftNanos = Math.max(driftNanos, driftMargin(sessionTimeout).toNanos());
    }

    /**
     * A request of this session, sent at {@code start}, was confirmed through the leader at
     * {@code answered} (both clock readings): it proves every earlier confirmed request answered at
     * least half a tick before {@code start} heard.
     *
     * <p>Requests are proven in the order they were confirmed: one answered late (a slow request)
     * holds back the proof of those confirmed after it until it is proven itself, within half a
     * tick. The bound is then earlier than it could be, never later.
     */
    void confirmed(long start, long answered) {
        long[] earliest;
        while ((earliest = unproven.peekFirst()) != null && start - (earliest[1] + lagNanos) >= 0) {
            unproven.pollFirst();
            if (earliest[0] - heardStart > 0) {
                heardStart = earliest[0];
            }
        }
        if (start - heardStart > 0) {
            long[] last;
            // a request started later and answered no later proves no later and counts a later start
            while ((last = unproven.peekLast()) != null && last[1] - answered >= 0 && start - last[0] >= 0) {
                unproven.pollLast();
            }
            unproven.addLast(new long[] {start, answered});
        }
    }

    /** How many confirmed requests wait for their proof (for tests). */
    int unprovenCount() {
        return unproven.size();
    }

    /** The earliest clock reading at which the ensemble may have ended the session. */
    long deadline() {
        return heardStart + timeoutNanos - driftNanos;
    }
}
