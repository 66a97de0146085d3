package dev.fencing.spring.integration;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.InMemoryLockProvider;
import dev.fencing.testkit.InMemoryLockServer;

/** The registry's contract over the testkit's in-memory provider: every registry a client of one server. */
class InMemoryFencedLockRegistryTest extends FencedLockRegistryContract {

    private final InMemoryLockServer server = new InMemoryLockServer();

    @Override
    protected LockProvider newProvider() {
        return InMemoryLockProvider.builder().server(server).build();
    }
}
