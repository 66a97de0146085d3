package dev.fencing.core;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A blocking acquire gave up: the lock stayed held by someone else (or the provider could not
 * be asked) for the whole wait timeout; or a provider could not start because its server could
 * not be reached ({@link #resource()} is then {@code null}). Nothing is held by the caller.
 */
public final class LockUnavailableException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final @Nullable String resource;
    private final boolean timedOut;

    private LockUnavailableException(@Nullable String resource, String message, @Nullable Throwable cause,
            boolean timedOut) {
        super(message, cause);
        this.resource = resource;
        this.timedOut = timedOut;
    }

    /** The lock was held by another owner for the whole {@code waited} time. */
    public static LockUnavailableException timedOut(String resource, Duration waited) {
        return new LockUnavailableException(resource, "Lock '" + resource + "' is held by another owner and was not"
                + " released within the wait timeout of " + waited
                + ". Raise LeaseOptions.waitTimeout, or use tryAcquire to treat 'busy' as a normal outcome.", null, true);
    }

    /** The provider's backing server or pool could not grant anything; {@code cause} says why. */
    public static LockUnavailableException unreachable(String resource, String what, @Nullable Throwable cause) {
        return new LockUnavailableException(resource, "Lock '" + resource + "' could not be acquired: " + what, cause, false);
    }

    /**
     * A provider could not start: its server could not be reached or is unfit; no lock was asked
     * for. {@code provider} names it and where it connects (e.g. {@code "Redis lock provider for
     * redis://host:6379"}); {@code what} says why.
     */
    public static LockUnavailableException providerUnavailable(String provider, String what,
            @Nullable Throwable cause) {
        return new LockUnavailableException(null, "The " + provider + " could not start, so no lock was requested: "
                + what, cause, false);
    }

    /** Whether the lock stayed held by another owner for the whole wait timeout (not a server failure). */
    public boolean isTimeout() {
        return timedOut;
    }

    /** The resource whose lock was not acquired; {@code null} if a provider could not start. */
    public @Nullable String resource() {
        return resource;
    }
}
