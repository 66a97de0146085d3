package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.StoreBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FencedStore} in this JVM's memory: the reference implementation of the contract, and
 * a stand-in for a real store in users' unit tests. Each conditional write is atomic under one
 * monitor.
 *
 * <p>To let several "processes" share one memory (a zombie and the holder that replaced it, each
 * with its own store), create an {@link InMemoryStorage} once and hand it to
 * {@link Builder#storage} for each of them:
 *
 * <pre>{@code
 * InMemoryStorage memory = new InMemoryStorage();
 * FencedStore holder = InMemoryFencedStore.builder().storage(memory).build();
 * FencedStore zombie = InMemoryFencedStore.builder().storage(memory).policy(Policy.STRICT).build();
 * }</pre>
 */
public final class InMemoryFencedStore {

    private InMemoryFencedStore() {}

    /** A {@link Policy#MONOTONIC} store with a memory of its own, telling no listener. */
    public static FencedStore create() {
        return builder().build();
    }

    /** A builder: a memory of its own, {@link Policy#MONOTONIC} and no listener unless set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Configures an {@link InMemoryFencedStore}; every setting is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        private @Nullable InMemoryStorage storage;

        private Builder() {}

        /** The memory to keep items in, which other stores may share; default a new one per store. */
        public Builder storage(InMemoryStorage storage) {
            this.storage = Checks.requireNonNull("storage", storage);
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        public FencedStore build() {
            return storeOver((storage != null ? storage : new InMemoryStorage()).accessor());
        }
    }
}
