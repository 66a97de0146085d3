package dev.fencing.core;

import org.jspecify.annotations.Nullable;

/**
 * The caller's lease is over — it expired, its renewal failed, its connection died, or another
 * owner now holds the lock — and the caller tried to act on it (renew, release, or
 * {@link Lease#requireValidFor check it before a side effect}).
 *
 * <p>Stop the critical section. Writes already sent with this lease's token are still fenced by
 * the store; writes not yet sent should not be sent.
 */
public final class LeaseLostException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final FencingToken token;

    private LeaseLostException(FencingToken token, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.token = token;
    }

    /**
     * The lease on {@code token}'s resource is over.
     *
     * @param reason what the caller tried and what was found, e.g. "renew found another owner"
     */
    public static LeaseLostException of(FencingToken token, String reason) {
        return of(token, reason, null);
    }

    /** As {@link #of(FencingToken, String)}, with the failure that ended the lease. */
    public static LeaseLostException of(FencingToken token, String reason, @Nullable Throwable cause) {
        return new LeaseLostException(token, "Lease on '" + token.resource() + "' (token " + token.value()
                + ") is lost: " + reason + ". Stop the critical section; re-acquire to continue.", cause);
    }

    /** The token of the lost lease. */
    public FencingToken token() {
        return token;
    }
}
