package dev.fencing.core.spi;

import java.net.ConnectException;

/**
 * What a failed write request may have done, decided from what its client saw of the server's
 * reply — the one rule every store follows for lost replies (guarantee 8 in docs/guarantees.md). A store maps its
 * client library's errors onto {@link #withoutReply} or {@link #answered} in one place; the rule
 * itself is here.
 *
 * <ul>
 *   <li>No reply (a timeout, a dropped connection, an unreadable reply): {@link #UNCLEAR} — the
 *       server may have acted — unless the connection was refused ({@link ConnectException} in
 *       the cause chain), when the request never reached it: {@link #NOT_SENT}.
 *   <li>A reply with a status: a server error (500 and above) is {@link #UNCLEAR}, since the
 *       server may have acted before it failed; a throttle below 500 is {@link #THROTTLED}; any
 *       other answer is {@link #NOT_APPLIED}.
 * </ul>
 *
 * <p>Only {@link #NOT_SENT} and {@link #THROTTLED} may be sent again as they are. An
 * {@link #UNCLEAR} write must never be: its reply may have been lost after it landed, and a second
 * copy fails its condition (the toolkit would call the holder's own write stale) or passes it and
 * applies the change twice. The store finds out instead (a write id, a marker) or reports
 * {@link dev.fencing.core.WriteOutcomeUnknownException}.
 */
public enum FailedWrite {

    /** The request never reached the server (a refused connection): not applied; safe to send again. */
    NOT_SENT,

    /** The server refused it before acting and asked to be asked later (a throttle): safe to send again. */
    THROTTLED,

    /** The server answered that it did not apply it (a failed condition, bad input, a 4xx): final. */
    NOT_APPLIED,

    /** It may or may not have been applied (no reply, or a server error): never send it again blindly. */
    UNCLEAR;

    /** A failure raised by the client without a reply from the server. */
    public static FailedWrite withoutReply(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException) {
                return NOT_SENT;
            }
        }
        return UNCLEAR;
    }

    /**
     * A failure the server answered with HTTP-like {@code status}; {@code throttled} if the server
     * said it is throttling the caller.
     */
    public static FailedWrite answered(int status, boolean throttled) {
        if (status >= 500) {
            return UNCLEAR;
        }
        return throttled ? THROTTLED : NOT_APPLIED;
    }

    /** Whether the write may have been applied: {@link #UNCLEAR}. */
    public boolean mayHaveBeenApplied() {
        return this == UNCLEAR;
    }

    /** Whether the request may be sent again as it is: {@link #NOT_SENT} or {@link #THROTTLED}. */
    public boolean safeToSendAgain() {
        return this == NOT_SENT || this == THROTTLED;
    }
}
