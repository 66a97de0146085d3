package dev.fencing.core;

import java.time.Duration;

/**
 * A blocking acquire gave up: the lock stayed held by someone else (or the provider could not
 * be asked) for the whole wait timeout. Nothing is held by the caller.
 */
public final class LockUnavailableException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final String resource;

    private LockUnavailableException(String resource, String message, Throwable cause) {
        super(message, cause);
        this.resource = resource;
    }

    /** The lock was held by another owner for the whole {@code waited} time. */
    public static LockUnavailableException timedOut(String resource, Duration waited) {
        return new LockUnavailableException(resource, "Lock '" + resource + "' is held by another owner and was not"
                + " released within the wait timeout of " + waited
                + ". Raise LeaseOptions.waitTimeout, or use tryAcquire to treat 'busy' as a normal outcome.", null);
    }

    /** The provider's backing server or pool could not grant anything; {@code cause} says why. */
    public static LockUnavailableException unreachable(String resource, String what, Throwable cause) {
        return new LockUnavailableException(resource, "Lock '" + resource + "' could not be acquired: " + what, cause);
    }

    /** The resource whose lock was not acquired. */
    public String resource() {
        return resource;
    }
}
