package dev.fencing.redis;

import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LeadershipContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Leader election on Redlock over five redis-server processes, each candidate with clients of its
 * own; the node timeout is the one {@link RedlockProviderIT} uses on this shared machine.
 */
class RedlockLeadershipIT extends LeadershipContract {

    private final List<RedisTestServer> nodes = TestServers.redisNodes(5);

    @Override
    protected LockProvider createProvider() {
        return RedlockProvider.builder(nodes.stream().map(RedisTestServer::uri).toList())
                .requestTimeout(Duration.ofSeconds(1)).build();
    }

    /** The client of {@link RedlockProviderIT}'s unclear-replies test: three of five nodes' replies held. */
    @Override
    protected Optional<UnclearReplies> silencedClient() {
        return new RedlockProviderIT().unclearReplies();
    }
}
