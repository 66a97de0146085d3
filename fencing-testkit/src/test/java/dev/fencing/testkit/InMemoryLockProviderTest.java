package dev.fencing.testkit;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.MonotonicClock;

class InMemoryLockProviderTest extends LockProviderContract {

    private final InMemoryLockServer server = new InMemoryLockServer();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return InMemoryLockProvider.connect(server, MonotonicClock.system(), listener);
    }

    @Override
    protected LockProvider createUnreachableProvider() {
        InMemoryLockServer cutOff = new InMemoryLockServer();
        LockProvider provider = InMemoryLockProvider.connect(cutOff, MonotonicClock.system(), FencingListener.NONE);
        cutOff.disconnect();
        return provider;
    }
}
