package dev.fencing.propagation;

/**
 * A {@value TokenHeader#HTTP_HEADER} value that is not a token: the message names what is wrong and
 * the form that is expected. A server answers it as bad input (HTTP 400, gRPC
 * {@code INVALID_ARGUMENT}) and runs nothing.
 */
public final class MalformedTokenException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** With a message naming the bad value and what is allowed. */
    public MalformedTokenException(String message) {
        super(message);
    }

    /** With a message naming the bad value and what is allowed, and the check that failed. */
    public MalformedTokenException(String message, Throwable cause) {
        super(message, cause);
    }
}
