package dev.fencing.redis;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.FrozenLeaderContract;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.List;

/** A leader in a JVM of its own frozen past its TTL, on Redis. */
class RedisFrozenLeaderIT extends FrozenLeaderContract {

    private final RedisTestServer redis = TestServers.redis();

    @Override
    protected LockProvider createProvider() {
        return RedisLockProvider.builder(redis.uri()).build();
    }

    @Override
    protected Class<?> childMain() {
        return LeaderChildMain.class;
    }

    @Override
    protected List<String> childArguments(String lock, Duration ttl) {
        return List.of(redis.uri(), lock, Long.toString(ttl.toMillis()));
    }
}
