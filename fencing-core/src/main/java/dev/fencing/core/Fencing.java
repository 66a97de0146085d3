package dev.fencing.core;

import dev.fencing.core.internal.Checks;
import java.util.function.Consumer;
import java.util.function.Function;

/** Helpers that run a block of code under a lease and always release it. */
public final class Fencing {

    private Fencing() {}

    /**
     * Acquires {@code resource} (waiting up to {@link LeaseOptions#waitTimeout()}), applies
     * {@code body} to the lease and releases it, whatever {@code body} does. If {@code body}
     * throws, a failure to release is attached to its exception as suppressed.
     *
     * @return what {@code body} returned
     * @throws LockUnavailableException if the lock could not be acquired in time
     * @throws LeaseLostException if the lease was lost before the release (see {@link Lease#release()})
     * @throws InterruptedException if interrupted while waiting for the lock
     */
    public static <T> T withLease(LockProvider provider, String resource, LeaseOptions options,
            Function<? super Lease, ? extends T> body) throws InterruptedException {
        Checks.requireNonNull("provider", provider);
        Checks.requireNonNull("body", body);
        try (Lease lease = provider.acquire(resource, options)) {
            return body.apply(lease);
        }
    }

    /** As {@link #withLease}, for a body that returns nothing. */
    public static void runWithLease(LockProvider provider, String resource, LeaseOptions options,
            Consumer<? super Lease> body) throws InterruptedException {
        Checks.requireNonNull("body", body);
        withLease(provider, resource, options, lease -> {
            body.accept(lease);
            return null;
        });
    }
}
