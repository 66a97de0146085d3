package dev.fencing.redis;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link RedisFencedStore} on the testkit's 3-master Redis Cluster; each store with a cluster
 * connection of its own (closed after the test), as another process would have.
 */
class RedisClusterFencedStoreIT extends FencedStoreContract {

    private static RedisClusterClient client;

    @BeforeAll
    static void connect() {
        client = RedisClusterClient.create(TestServers.redisCluster().seedUris().stream().map(RedisURI::create).toList());
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
    }

    @Override
    protected String whyNoLostReplies() {
        return "a cluster client connects to the node addresses in the topology the cluster announces, so a proxy in"
                + " front of a seed node is bypassed for every write; the store's script and marker are those of one"
                + " Redis, whose lost replies RedisFencedStoreIT checks";
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return RedisFencedStore.builder(closeAfterTest(client.connect())).keyPrefix("store:").policy(policy).build();
    }
}
