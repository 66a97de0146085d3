package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;

/** The reference store reports each refusal once. */
class InMemoryRefusalReportsTest extends RefusalReportsContract {

    private final InMemoryStorage memory = new InMemoryStorage();

    @Override
    protected FencedStore createStore(FencingListener listener) {
        return InMemoryFencedStore.builder().storage(memory).listener(listener).build();
    }
}
