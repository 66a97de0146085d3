package dev.fencing.core;

/**
 * A fenced read-modify-write ({@link FencedStore#update}) kept finding that the item changed
 * between its read and its conditional write, and gave up after a bounded number of attempts.
 * Nothing was written by the last attempt. Unlike {@link StaleTokenException} the caller's token
 * is still good: retrying later may succeed.
 */
public final class ConcurrentUpdateException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final int attempts;

    private ConcurrentUpdateException(String key, int attempts, String message) {
        super(message);
        this.key = key;
        this.attempts = attempts;
    }

    /** {@code attempts} conditional writes on {@code key} all lost a race. */
    public static ConcurrentUpdateException gaveUp(String key, int attempts) {
        return new ConcurrentUpdateException(key, attempts, "Fenced update of '" + key + "' gave up after " + attempts
                + " attempts: every conditional write found the item changed since it was read. Several writers"
                + " share one token (or the lock is not held); the token itself was not refused.");
    }

    /** The key of the item that kept changing. */
    public String key() {
        return key;
    }

    /** How many conditional writes were tried. */
    public int attempts() {
        return attempts;
    }
}
