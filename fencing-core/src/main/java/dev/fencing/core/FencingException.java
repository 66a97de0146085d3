package dev.fencing.core;

import org.jspecify.annotations.Nullable;

/**
 * Root of every failure the toolkit reports: unchecked, with a message that says what happened
 * and what the caller should do. Catch a leaf type to handle one failure; catch this type to
 * handle them all.
 */
public abstract class FencingException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    protected FencingException(String message) {
        super(message);
    }

    protected FencingException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
