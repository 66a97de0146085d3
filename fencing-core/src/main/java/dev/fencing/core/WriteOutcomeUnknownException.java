package dev.fencing.core;

/**
 * A fenced write's reply was lost (a timeout, a dropped connection) after the request may have
 * reached the store, and the toolkit could not prove either way whether it landed: the write may
 * or may not have been applied — but it was applied <em>at most once</em>. The toolkit never
 * re-applies a change on its own after such a loss, because a blind retry could apply it twice
 * (an increment, a debit).
 *
 * <p>When the toolkit <em>can</em> prove its own write landed (each fenced write carries a random
 * write id the store keeps with the item, or a marker the store script leaves), the caller is told
 * "written" instead; when the store certainly refused it, a {@link StaleTokenException} or
 * {@link ConcurrentUpdateException} as usual. This exception covers only the remaining case — and
 * every lost reply of a store that keeps no such proof (JDBC's {@code JdbcFencedStore}). Its cause
 * is the error that lost the reply (the SDK's, the driver's).
 *
 * <p>What to do: re-read the item and decide from what it holds (the lease and its token are
 * still good unless a {@link StaleTokenException} says otherwise). Do not simply repeat a
 * non-idempotent change.
 */
public final class WriteOutcomeUnknownException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final String key;

    private WriteOutcomeUnknownException(String key, String message, Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    /**
     * The write to {@code key} ended with {@code cause} (the transport failure) and its effect could
     * not be established.
     */
    public static WriteOutcomeUnknownException of(String key, Throwable cause) {
        return new WriteOutcomeUnknownException(key, "The fenced write of '" + key + "' may or may not have been"
                + " applied: its reply was lost (" + describe(cause) + ") and the store does not show that this"
                + " write landed. It was applied at most once and was not retried. Re-read '" + key + "' before deciding"
                + " whether to write again.", cause);
    }

    private static String describe(Throwable cause) {
        if (cause == null) {
            return "no reply";
        }
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }

    /** The key (item, object) the write was aimed at. */
    public String key() {
        return key;
    }
}
