package dev.fencing.redis;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.RefusalReportsContract;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One WARN and one listener event per refusal through {@link RedisFencedStore}. */
class RedisRefusalReportsIT extends RefusalReportsContract {

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(TestServers.redis().uri());
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    @Override
    protected FencedStore createStore(FencingListener listener) {
        return RedisFencedStore.builder(connection).keyPrefix("reports:").listener(listener).build();
    }
}
