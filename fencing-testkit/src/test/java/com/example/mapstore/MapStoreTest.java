package com.example.mapstore;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;

class MapStoreTest extends FencedStoreContract {

    private final MapStore.Server server = new MapStore.Server();   // in a real store: your test server

    @Override
    protected FencedStore createStore(Policy policy) {   // a client of its own on each call, as a second process has
        return MapStore.connect(server, policy);
    }

    @Override
    protected String whyNoLostReplies() {
        return "a map loses no replies; a networked store returns LostReplies.through(proxy, ...) from lostReplies()";
    }
}
