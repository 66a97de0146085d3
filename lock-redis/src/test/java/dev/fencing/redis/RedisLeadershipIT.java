package dev.fencing.redis;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;

/** Leader election on the single-instance Redis provider, each candidate with a client of its own. */
class RedisLeadershipIT extends LeadershipContract {

    private final RedisTestServer redis = TestServers.redis();

    @Override
    protected LockProvider createProvider() {
        return RedisLockProvider.builder(redis.uri()).build();
    }
}
