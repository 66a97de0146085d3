package dev.fencing.propagation;

/**
 * A request reached a fenced endpoint without a {@value TokenHeader#HTTP_HEADER}: the server
 * answers HTTP 428 (Precondition Required) or gRPC {@code FAILED_PRECONDITION} and runs nothing.
 * The caller acquires the lock and sends its token ({@link FencingContext#bind}).
 */
public final class MissingTokenException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** For a request to {@code target} (a path or a gRPC method) that carried no token. */
    public MissingTokenException(String target) {
        super(target + " is fenced: send the lock's token in " + TokenHeader.HTTP_HEADER + " (gRPC: "
                + TokenHeader.GRPC_KEY + "), e.g. '42; lock=orders%2F7'; none was sent");
    }
}
