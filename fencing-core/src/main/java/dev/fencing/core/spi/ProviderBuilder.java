package dev.fencing.core.spi;

import dev.fencing.core.FencingListener;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.internal.Checks;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The settings every provider's builder has — listener, clock, watchdog — written once.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class ProviderBuilder<B extends ProviderBuilder<B>> {

    /** Lease events go here; default none. */
    protected FencingListener listener = FencingListener.NONE;
    /** The monotonic clock for lease validity and waits; default the system's. */
    protected MonotonicClock clock = MonotonicClock.system();
    /** The watchdog that renews auto-renewing leases; default the shared one. */
    protected LeaseWatchdog watchdog = LeaseWatchdog.shared();
    /** The margin of {@link FencingListener#onRenewalsFailing}; null for a third of each lease's TTL. */
    protected @Nullable Duration expiryWarning;

    /** This builder, typed. */
    protected abstract B self();

    /** Lease events go here; default none. */
    public B listener(FencingListener listener) {
        this.listener = Checks.requireNonNull("listener", listener);
        return self();
    }

    /** The monotonic clock for lease validity; default {@link MonotonicClock#system()}. */
    public B clock(MonotonicClock clock) {
        this.clock = Checks.requireNonNull("clock", clock);
        return self();
    }

    /** The watchdog that renews auto-renewing leases; default {@link LeaseWatchdog#shared()}. */
    public B watchdog(LeaseWatchdog watchdog) {
        this.watchdog = Checks.requireNonNull("watchdog", watchdog);
        return self();
    }

    /**
     * When the listener hears {@link FencingListener#onRenewalsFailing}: once an auto-renewed
     * lease whose renewals have been failing has {@code margin} or less left (amazon-dynamodb-lock-client's
     * session monitor {@code safeTimeWithoutHeartbeat}); 1 ms to 7 days, default a third of each
     * lease's TTL. A margin longer than a lease's TTL warns at its first failed renewal.
     */
    public B expiryWarning(Duration margin) {
        this.expiryWarning = Checks.requireBetween("expiryWarning", margin, Duration.ofMillis(1), Duration.ofDays(7));
        return self();
    }
}
