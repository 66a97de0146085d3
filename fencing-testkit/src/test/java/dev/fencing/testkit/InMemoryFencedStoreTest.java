package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;

/** The reference store: every store made in one test shares one memory, as stores on one server do. */
class InMemoryFencedStoreTest extends FencedStoreContract {

    private final InMemoryFencedStore memory = InMemoryFencedStore.memory();

    @Override
    protected FencedStore createStore(Policy policy) {
        return InMemoryFencedStore.over(memory, policy);
    }
}
