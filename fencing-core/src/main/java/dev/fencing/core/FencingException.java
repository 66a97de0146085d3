package dev.fencing.core;

import org.jspecify.annotations.Nullable;

/**
 * Root of every failure of a fenced operation itself — a refused write, a lost lease, an unreachable
 * lock server or store, an unknown outcome, an update that kept conflicting: unchecked, with a message that
 * says what happened and what the caller should do. Catch a leaf type to handle one failure; catch
 * this type to handle them all.
 *
 * <p>Outside it, on purpose, are misuse and the caller's own failures, in Java's standard types so
 * that existing handlers keep working: {@link ProviderClosedException} (an
 * {@link IllegalStateException}: the provider was closed), the propagation module's
 * {@code MissingTokenException} and {@code MalformedTokenException} (a request without a token, an
 * unreadable one), an {@link IllegalArgumentException} naming any bad argument, and the JDBC
 * module's {@code UncheckedSqlException} (a database error under a store method, as
 * {@link java.io.UncheckedIOException} carries an I/O error). A store whose server does not answer
 * throws {@link StoreUnavailableException} (nothing written) or, for a write that may have landed,
 * {@link WriteOutcomeUnknownException}. docs/architecture.md lists them.
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
