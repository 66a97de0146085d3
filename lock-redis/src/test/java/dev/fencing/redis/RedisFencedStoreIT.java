package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisFencedStoreIT extends FencedStoreContract {

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
    protected FencedStore createStore(Policy policy) {
        return RedisFencedStore.create(connection, "store:", policy, FencingListener.NONE);
    }

    @Test
    void theItemIsAHashWithValueMarkAndVersion() {
        String key = key("k");
        store.write(key, "v", token(3));
        assertThat(connection.sync().hgetall("store:{" + key + "}:item"))
                .containsEntry("v", "v").containsEntry("t", "3").containsEntry("n", "1");
        store.delete(key, token(4));
        assertThat(connection.sync().hgetall("store:{" + key + "}:item"))
                .doesNotContainKey("v").containsEntry("t", "4");
    }

    @Test
    void aBadPrefixIsRefused() {
        assertThatThrownBy(() -> RedisFencedStore.create(connection, "a b", Policy.MONOTONIC, FencingListener.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a b'");
    }
}
