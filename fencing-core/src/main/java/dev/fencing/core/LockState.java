package dev.fencing.core;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a lock provider's server holds for one resource right now, for operators: the current
 * holder's owner id and remaining TTL (empty and zero when free), and the last token issued.
 *
 * @param resource the resource asked about
 * @param holder the owner id of the lease holding the lock, if any
 * @param remaining how long the server keeps the lock without a renewal; zero when free
 * @param lastToken the token of the latest grant, if the server still knows it
 */
public record LockState(String resource, Optional<String> holder, Duration remaining, OptionalLong lastToken) {

    /** Validates the components. */
    public LockState {
        if (resource == null || holder == null || remaining == null || lastToken == null || remaining.isNegative()) {
            throw new IllegalArgumentException("LockState needs a resource, a holder (or empty), a non-negative"
                    + " remaining time and a last token (or empty)");
        }
    }

    /** Whether some lease holds the lock. */
    public boolean isHeld() {
        return holder.isPresent();
    }
}
