package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each setting of {@link RedisFencedStore.Builder} takes effect against the testkit's Redis (and
 * its Redis Cluster), {@code create} is the builder's defaults — keys under
 * {@value RedisFencedStore#DEFAULT_PREFIX}, {@link Policy#MONOTONIC}, no listener — and bad input is
 * refused naming the value. Zombie and holder each have a connection of their own.
 */
class RedisFencedStoreBuilderIT {

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static StatefulRedisConnection<String, String> zombieConnection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(TestServers.redis().uri());
        connection = client.connect();
        zombieConnection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        zombieConnection.close();
        connection.close();
        client.shutdown();
    }

    private static String key() {
        return "builder-" + UUID.randomUUID();
    }

    private static String mark(String itemKey) {
        return connection.sync().hget(itemKey, "t");
    }

    @Test
    void createIsTheDefaults() {
        FencedStore store = RedisFencedStore.create(connection);
        String key = key();
        store.write(FencingToken.of("orders", 10), key, "a");
        store.write(FencingToken.of("orders", 10), key, "b"); // MONOTONIC: the same token writes again
        assertThat(mark("fencing:store:{" + key + "}:item")).isEqualTo("10");
        assertThat(store.read(key)).hasValueSatisfying(value -> assertThat(value.value()).isEqualTo("b"));
    }

    @Test
    void thePrefixStartsEveryKey() {
        String key = key();
        RedisFencedStore.builder(connection).keyPrefix("tenant-7:").build().write(FencingToken.of("orders", 3), key, "v");
        RedisFencedStore.create(connection, "app.").write(FencingToken.of("orders", 4), key, "v");
        RedisFencedStore.builder(connection).keyPrefix("").build().write(FencingToken.of("orders", 5), key, "v");
        assertThat(mark("tenant-7:{" + key + "}:item")).isEqualTo("3");
        assertThat(mark("app.{" + key + "}:item")).isEqualTo("4");
        assertThat(mark("{" + key + "}:item")).isEqualTo("5");
        assertThat(connection.sync().exists("fencing:store:{" + key + "}:item")).isZero();
    }

    @Test
    void strictRefusesTheSameTokenThatMonotonicLetsThrough() {
        FencedStore strict = RedisFencedStore.builder(connection).policy(Policy.STRICT).build();
        String key = key();
        strict.write(FencingToken.of("orders", 10), key, "a");
        assertThatThrownBy(() -> strict.write(FencingToken.of("orders", 10), key, "b"))
                .isInstanceOf(StaleTokenException.class);
        strict.write(FencingToken.of("orders", 11), key, "c");
    }

    @Test
    void theListenerHearsTheRefusedWrite() {
        RecordingListener zombieEvents = new RecordingListener();
        FencedStore holder = RedisFencedStore.create(connection);
        FencedStore zombie = RedisFencedStore.builder(zombieConnection).listener(zombieEvents).build();
        String key = key();
        holder.write(FencingToken.of("orders", 10), key, "holder");
        assertThatThrownBy(() -> zombie.write(FencingToken.of("orders", 7), key, "zombie"))
                .isInstanceOf(StaleTokenException.class);
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
        assertThat(zombieEvents.accepted()).isZero();
    }

    @Test
    void onAClusterTheSettingsTakeEffectToo() {
        RedisClusterClient cluster = RedisClusterClient.create(TestServers.redisCluster().seedUris().stream()
                .map(RedisURI::create).toList());
        try (StatefulRedisClusterConnection<String, String> holderConnection = cluster.connect();
                StatefulRedisClusterConnection<String, String> zombieOnCluster = cluster.connect()) {
            RecordingListener zombieEvents = new RecordingListener();
            FencedStore holder = RedisFencedStore.create(holderConnection);
            FencedStore zombie = RedisFencedStore.builder(zombieOnCluster).keyPrefix("cluster:").policy(Policy.STRICT)
                    .listener(zombieEvents).build();
            String key = key();
            holder.write(FencingToken.of("orders", 10), key, "holder");
            assertThat(holderConnection.sync().hget("fencing:store:{" + key + "}:item", "t")).isEqualTo("10");
            zombie.write(FencingToken.of("orders", 10), key, "first");
            assertThatThrownBy(() -> zombie.write(FencingToken.of("orders", 10), key, "again"))
                    .as("STRICT").isInstanceOf(StaleTokenException.class);
            assertThat(holderConnection.sync().hget("cluster:{" + key + "}:item", "t")).isEqualTo("10");
            assertThat(zombieEvents.staleRejected()).isEqualTo(1);
        } finally {
            cluster.shutdown();
        }
    }

    @Test
    void badInputIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> RedisFencedStore.builder((StatefulRedisConnection<String, String>) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connection must not be null");
        assertThatThrownBy(() -> RedisFencedStore.create((StatefulRedisClusterConnection<String, String>) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connection must not be null");
        for (String prefix : new String[] {"a b", "{tag}:", "p".repeat(65), null}) {
            assertThatThrownBy(() -> RedisFencedStore.builder(connection).keyPrefix(prefix))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("keyPrefix must be up to 64 letters, digits or ':_-.', got '" + prefix + "'");
        }
        assertThatThrownBy(() -> RedisFencedStore.builder(connection).policy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("policy must not be null");
        assertThatThrownBy(() -> RedisFencedStore.builder(connection).listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener must not be null");
    }
}
