package dev.fencing.testkit;

import dev.fencing.core.LockProvider;

/** The leadership contract on the in-memory reference provider: candidates share one lock server. */
class InMemoryLeadershipTest extends LeadershipContract {

    private final InMemoryLockServer server = new InMemoryLockServer();

    @Override
    protected LockProvider createProvider() {
        return InMemoryLockProvider.builder().server(server).build();
    }

    @Override
    protected String whyNoSilencedClient() {
        return "an in-memory server falls silent for every client at once (disconnect()), so no other candidate could"
                + " be elected meanwhile; the provider modules run this test through proxies";
    }
}
