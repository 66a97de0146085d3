package dev.fencing.zookeeper;

import dev.fencing.testkit.LeaderChild;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.time.Duration;

/**
 * A leadership candidate in a process of its own, for {@link ZooKeeperFrozenLeaderIT}: see {@link LeaderChild}.
 *
 * <p>Arguments: ZooKeeper connect string, lock, TTL in milliseconds.
 */
public final class LeaderChildMain {

    private LeaderChildMain() {}

    public static void main(String[] args) throws Exception {
        LeaderChild.run(ZooKeeperLockProvider.builder(args[0])
                .serverTickTime(ZooKeeperTestServer.TICK_TIME).build(), args[1], Duration.ofMillis(Long.parseLong(args[2])));
    }
}
