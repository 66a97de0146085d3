package dev.fencing.zookeeper;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.testkit.servers.ZooKeeperTestServer;

/** Leader election on ZooKeeper, each candidate with a session of its own. */
class ZooKeeperLeadershipIT extends LeadershipContract {

    private final ZooKeeperTestServer zooKeeper = TestServers.zooKeeper();

    @Override
    protected LockProvider createProvider() {
        return ZooKeeperLockProvider.builder(zooKeeper.connectString()).build();
    }
}
