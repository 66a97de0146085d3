package dev.fencing.core;

/**
 * A {@link LockProvider} was asked for a lock after (or while) it was closed: it grants nothing
 * more. A subtype of {@link IllegalStateException}, so that code which catches that keeps working;
 * code that retries failed attempts (leader election, for one) can tell this end of the provider
 * from an {@code IllegalStateException} a provider's client throws for a passing reason.
 */
public class ProviderClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** @param message what was closed, and what the call was */
    public ProviderClosedException(String message) {
        super(message);
    }

    /**
     * @param message what was closed, and what the call was
     * @param cause what showed it (a rejected task, for instance)
     */
    public ProviderClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
