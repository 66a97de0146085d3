package dev.fencing.testkit;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;

class InMemoryLockProviderTest extends LockProviderContract {

    private final InMemoryLockServer server = new InMemoryLockServer();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return InMemoryLockProvider.builder().server(server).listener(listener).build();
    }

    @Override
    protected LockProvider createUnreachableProvider() {
        InMemoryLockServer cutOff = new InMemoryLockServer();
        LockProvider provider = InMemoryLockProvider.builder().server(cutOff).build();
        cutOff.disconnect();
        return provider;
    }

    /** Lock requests carried out whose answers the server then loses (the provider sharing its server). */
    @Override
    protected java.util.Optional<UnclearReplies> unclearReplies() {
        InMemoryLockProvider own = InMemoryLockProvider.builder().server(server).build();
        return java.util.Optional.of(UnclearReplies.of(own, server::loseAcquireReplies, server::answerAgain, () -> {
            server.answerAgain();
            own.close();
        }));
    }
}
