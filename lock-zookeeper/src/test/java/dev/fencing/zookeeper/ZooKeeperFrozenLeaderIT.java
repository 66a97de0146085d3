package dev.fencing.zookeeper;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.FrozenLeaderContract;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.time.Duration;
import java.util.List;

/** A leader in a JVM of its own frozen past its TTL, on ZooKeeper (the server runs in this JVM, which is never frozen). */
class ZooKeeperFrozenLeaderIT extends FrozenLeaderContract {

    private final ZooKeeperTestServer zooKeeper = TestServers.zooKeeper();

    @Override
    protected LockProvider createProvider() {
        return ZooKeeperLockProvider.builder(zooKeeper.connectString())
                .serverTickTime(ZooKeeperTestServer.TICK_TIME).build();
    }

    @Override
    protected Class<?> childMain() {
        return LeaderChildMain.class;
    }

    @Override
    protected List<String> childArguments(String lock, Duration ttl) {
        return List.of(zooKeeper.connectString(), lock, Long.toString(ttl.toMillis()));
    }
}
