package dev.fencing.redis;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.util.Optional;

/** Leader election on the single-instance Redis provider, each candidate with a client of its own. */
class RedisLeadershipIT extends LeadershipContract {

    private final RedisTestServer redis = TestServers.redis();

    @Override
    protected LockProvider createProvider() {
        return RedisLockProvider.builder(redis.uri()).build();
    }

    /** The client of {@link RedisLockProviderIT}'s unclear-replies test: replies held behind a 200 ms command timeout. */
    @Override
    protected Optional<UnclearReplies> silencedClient() {
        return new RedisLockProviderIT().unclearReplies();
    }
}
