package dev.fencing.etcd;

import dev.fencing.testkit.LeaderChild;
import java.time.Duration;

/**
 * A leadership candidate in a process of its own, for {@link EtcdFrozenLeaderIT}: see {@link LeaderChild}.
 *
 * <p>Arguments: etcd endpoint, lock, TTL in milliseconds.
 */
public final class LeaderChildMain {

    private LeaderChildMain() {}

    public static void main(String[] args) throws Exception {
        LeaderChild.run(EtcdLockProvider.builder(args[0]).requestTimeout(Duration.ofSeconds(10)).build(), args[1], Duration.ofMillis(Long.parseLong(args[2])));
    }
}
