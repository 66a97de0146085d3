package dev.fencing.core.spi;

import dev.fencing.core.FencingListener;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.internal.Checks;

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
}
