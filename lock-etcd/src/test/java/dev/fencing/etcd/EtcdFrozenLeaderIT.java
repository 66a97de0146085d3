package dev.fencing.etcd;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.FrozenLeaderContract;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.List;

/** A leader in a JVM of its own frozen past its TTL, on etcd. */
class EtcdFrozenLeaderIT extends FrozenLeaderContract {

    private static final EtcdTestServer etcd = TestServers.etcd();

    @Override
    protected LockProvider createProvider() {
        return EtcdLockProvider.builder(etcd.endpoint()).requestTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    protected Class<?> childMain() {
        return LeaderChildMain.class;
    }

    @Override
    protected List<String> childArguments(String lock, Duration ttl) {
        return List.of(etcd.endpoint(), lock, Long.toString(ttl.toMillis()));
    }
}
