package dev.fencing.core;

/**
 * A store refused a write because it already accepted a token at least as new as the one
 * presented: a newer lock holder exists (or existed), so this holder's lease has ended even if
 * it has not noticed. Nothing was written.
 *
 * <p>The right reaction is to stop the critical section: do not retry with the same token.
 * Re-acquire the lock (which yields a newer token) and re-read before writing again.
 */
public final class StaleTokenException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final FencingToken presented;
    private final long highWaterMark;
    private final Policy policy;

    private StaleTokenException(String message, String key, FencingToken presented, long highWaterMark, Policy policy) {
        super(message);
        this.key = key;
        this.presented = presented;
        this.highWaterMark = highWaterMark;
        this.policy = policy;
    }

    /**
     * Builds the exception and its message once.
     *
     * @param key the store key (or row, object, resource) the write was aimed at
     * @param presented the token the writer presented
     * @param highWaterMark the highest token the store had accepted for {@code key}
     * @param policy the store's policy, which says why an equal token may be refused
     */
    public static StaleTokenException of(String key, FencingToken presented, long highWaterMark, Policy policy) {
        String why = presented.value() == highWaterMark
                ? "the store requires a token greater than " + highWaterMark + " (policy " + policy + ")"
                : "the store has already accepted token " + highWaterMark;
        String message = "Stale fencing token for '" + key + "': presented " + presented.value()
                + " (lock '" + presented.resource() + "'), but " + why
                + ". A newer lock holder has written, so this holder's lease is over: stop, re-acquire the lock"
                + " and re-read before writing again. Nothing was written.";
        return new StaleTokenException(message, key, presented, highWaterMark, policy);
    }

    /** The key, row, object or resource the refused write was aimed at. */
    public String key() {
        return key;
    }

    /** The token the refused writer presented. */
    public FencingToken presented() {
        return presented;
    }

    /** The highest token the store had accepted for {@link #key()} when it refused the write. */
    public long highWaterMark() {
        return highWaterMark;
    }

    /** The policy under which the write was refused. */
    public Policy policy() {
        return policy;
    }
}
