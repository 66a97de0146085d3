package dev.fencing.zookeeper;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.util.Optional;

/** Leader election on ZooKeeper, each candidate with a session of its own. */
class ZooKeeperLeadershipIT extends LeadershipContract {

    private final ZooKeeperTestServer zooKeeper = TestServers.zooKeeper();

    @Override
    protected LockProvider createProvider() {
        return ZooKeeperLockProvider.builder(zooKeeper.connectString())
                .serverTickTime(ZooKeeperTestServer.TICK_TIME).build();
    }

    /** The client of {@link ZooKeeperLockProviderIT}'s unclear-replies test: ZooKeeper behind proxies that hold its replies, a 3 s session. */
    @Override
    protected Optional<UnclearReplies> silencedClient() {
        return new ZooKeeperLockProviderIT().unclearReplies();
    }
}
