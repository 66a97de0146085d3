package dev.fencing.redis;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link RedisFencedStore} on the testkit's 3-master Redis Cluster. */
class RedisClusterFencedStoreIT extends FencedStoreContract {

    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClusterClient.create(TestServers.redisCluster().seedUris().stream().map(RedisURI::create).toList());
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return RedisFencedStore.create(connection, "store:", policy, FencingListener.NONE);
    }
}
