package dev.fencing.core;

/**
 * A store refused a write because its token was granted by a different lock than the one that
 * fences the key: the key's mark was set by tokens of {@link #boundResource()}, and the presented
 * token belongs to {@link #presented()}'s resource. Nothing was written.
 *
 * <p>Token values are only ordered within one lock; a holder of lock A compared against lock B's
 * mark could pass while B's rightful holder is still writing (or push B's mark far ahead and lock
 * its holders out). A key is therefore bound to the resource of the first token written to it,
 * deleted or not. This is almost always a bug at the call site: the wrong lease's token. To let
 * several locks fence one key on purpose, present their tokens under one shared name with
 * {@link FencingToken#forSharedFence(String)}.
 */
public final class ForeignTokenException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final FencingToken presented;
    private final String boundResource;

    private ForeignTokenException(String message, String key, FencingToken presented, String boundResource) {
        super(message);
        this.key = key;
        this.presented = presented;
        this.boundResource = boundResource;
    }

    /**
     * Builds the exception and its message once.
     *
     * @param key the store key (or row, object) the write was aimed at
     * @param presented the token the writer presented
     * @param boundResource the resource whose tokens fence {@code key}
     */
    public static ForeignTokenException of(String key, FencingToken presented, String boundResource) {
        String message = "Fencing token " + presented.value() + " of lock '" + presented.resource()
                + "' was presented for '" + key + "', which is fenced by lock '" + boundResource
                + "': tokens of different locks are not comparable. Write '" + key + "' while holding lock '"
                + boundResource + "', or present every lock's token under one shared fence name"
                + " (FencingToken.forSharedFence). Nothing was written.";
        return new ForeignTokenException(message, key, presented, boundResource);
    }

    /** The key, row or object the refused write was aimed at. */
    public String key() {
        return key;
    }

    /** The token the refused writer presented. */
    public FencingToken presented() {
        return presented;
    }

    /** The resource whose tokens fence {@link #key()}. */
    public String boundResource() {
        return boundResource;
    }
}
