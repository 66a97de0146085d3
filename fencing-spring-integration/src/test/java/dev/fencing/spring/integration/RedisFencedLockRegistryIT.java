package dev.fencing.spring.integration;

import dev.fencing.core.LockProvider;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.testkit.servers.TestServers;

/** The registry's contract over the Redis provider: every registry its own Lettuce client of the test server. */
class RedisFencedLockRegistryIT extends FencedLockRegistryContract {

    @Override
    protected LockProvider newProvider() {
        return RedisLockProvider.create(TestServers.redis().uri());
    }
}
