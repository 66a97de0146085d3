package dev.fencing.core;

import org.jspecify.annotations.Nullable;

/**
 * A {@link FencedStore} call failed because its server did not answer in time or could not be
 * reached, and <em>nothing was written by this call</em>: a read (a {@code read}, a
 * {@code highWaterMark}, the load before an {@code update}) timed out, or a write's request never
 * reached the server (a refused connection). Its cause is the client's own error (the SDK's
 * timeout, the driver's {@code SQLException}, Lettuce's timeout).
 *
 * <p>A write whose request <em>may</em> have reached the server is never this exception: it is
 * "written" when the store can prove it, or {@link WriteOutcomeUnknownException}. So a caller can
 * always try again after this one (while its lease is valid, the token still fences), and must
 * re-read first after that one.
 *
 * <p>Typical causes: the store is down or overloaded, the network is cut, or this process was
 * paused (a GC pause, a SIGSTOP) for longer than the store's request timeout.
 */
public final class StoreUnavailableException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final String store;
    private final String key;

    private StoreUnavailableException(String store, String key, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.store = store;
        this.key = key;
    }

    /**
     * {@code store} (as messages name it, such as {@code "S3 at http://host:9090"}) did not answer
     * {@code operation} (such as {@code "read"} or {@code "GetObject"}) of {@code key}; {@code cause}
     * is the client's error.
     */
    public static StoreUnavailableException of(String store, String operation, String key, @Nullable Throwable cause) {
        return new StoreUnavailableException(store, key, store + " did not answer the " + operation + " of '" + key
                + "' (" + describe(cause) + "); nothing was written by this call. The store may be down or slow, or"
                + " this process was paused past the request timeout: try again (the token still fences while the"
                + " lease is valid).", cause);
    }

    private static String describe(@Nullable Throwable cause) {
        if (cause == null) {
            return "no reply";
        }
        return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }

    /** The store as messages name it, such as {@code "S3 at http://host:9090"}. */
    public String store() {
        return store;
    }

    /** The key (item, object, row) the failed call was about. */
    public String key() {
        return key;
    }
}
