package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;

class InMemoryFencedStoreTest extends FencedStoreContract {

    @Override
    protected FencedStore createStore(Policy policy) {
        return InMemoryFencedStore.create(policy);
    }
}
