package dev.fencing.core.spi;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;

/**
 * The settings every store's builder has — policy and listener — written once, and the store they
 * make over a {@link StorageAccessor}: a {@link StorageBasedFencedStore} that tries an
 * {@code update} up to {@value #UPDATE_ATTEMPTS} times. A third-party store's builder extends it
 * the same way the toolkit's do.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class StoreBuilder<B extends StoreBuilder<B>> {

    /** How many conditional writes a store's {@code update} tries before it gives up. */
    public static final int UPDATE_ATTEMPTS = 100;

    /** Which tokens pass an item's mark; default {@link Policy#MONOTONIC}. */
    protected Policy policy = Policy.MONOTONIC;
    /** Where every write's ending is reported; default none. */
    protected FencingListener listener = FencingListener.NONE;

    /** This builder, typed. */
    protected abstract B self();

    /** Which tokens pass an item's mark: {@link Policy#MONOTONIC} (the default) or {@link Policy#STRICT}. */
    public B policy(Policy policy) {
        this.policy = Checks.requireNonNull("policy", policy);
        return self();
    }

    /**
     * Where every write's ending is reported: {@link FencingListener#onWriteAccepted},
     * {@link FencingListener#onStaleWriteRejected} (a refusal is also logged at WARN whatever the
     * listener) or {@link FencingListener#onWriteFailed}. Default: none.
     */
    public B listener(FencingListener listener) {
        this.listener = Checks.requireNonNull("listener", listener);
        return self();
    }

    /** The store, with this builder's settings. */
    public abstract FencedStore build();

    /** The store over {@code accessor}, with this builder's policy and listener. */
    protected final FencedStore storeOver(StorageAccessor<?> accessor) {
        return new StorageBasedFencedStore(accessor, policy, listener, UPDATE_ATTEMPTS);
    }
}
