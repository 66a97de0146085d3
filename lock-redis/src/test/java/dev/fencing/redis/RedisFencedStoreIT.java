package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisFencedStore} on the testkit's Redis; each store with a connection of its own (closed
 * after the test), as another process would have. The shared connection only inspects the keys.
 * Lost replies through the testkit's proxy: Lettuce re-sends the script after it reconnects, and the
 * re-sent script finds its first run's marker.
 */
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
        return RedisFencedStore.builder(closeAfterTest(client.connect())).keyPrefix("store:").policy(policy).build();
    }

    /**
     * Stores whose connections pass through a proxy that drops the reply to the store script's
     * {@code EVALSHA}. The script leaves a marker, so the store proves its own landed write.
     */
    @Override
    protected LostReplies lostReplies() {
        RedisTestServer redis = TestServers.redis();
        ReplyDroppingProxy proxy = ReplyDroppingProxy.start(redis.host(), redis.port());
        RedisClient viaProxy = RedisClient.create(proxy.redisUri());
        return LostReplies.of(policy -> RedisFencedStore.builder(closeAfterTest(viaProxy.connect())).keyPrefix("store:")
                .policy(policy).build(), inTheWindow -> proxy.dropReplyTo("EVALSHA", inTheWindow), proxy::dropped, true,
                () -> {
                    viaProxy.shutdown();
                    proxy.close();
                });
    }

    @Test
    void theItemIsAHashWithValueMarkAndVersion() {
        String key = key("k");
        store.write(token(3), key, "v");
        assertThat(connection.sync().hgetall("store:{" + key + "}:item"))
                .containsEntry("v", "v").containsEntry("t", "3").containsEntry("n", "1");
        store.delete(token(4), key);
        assertThat(connection.sync().hgetall("store:{" + key + "}:item"))
                .doesNotContainKey("v").containsEntry("t", "4");
    }

    @Test
    void aBadPrefixIsRefused() {
        assertThatThrownBy(() -> RedisFencedStore.builder(connection).keyPrefix("a b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a b'");
    }

    /** Neighbours of 2^53, where Lua doubles would call two tokens equal, under both policies. */
    @Test
    void tokensAroundTwoToThe53AreOrderedExactlyUnderBothPolicies() {
        long edge = 1L << 53;
        for (Policy policy : Policy.values()) {
            FencedStore fenced = createStore(policy);
            String key = key("edge-" + policy);
            fenced.write(token(edge - 1), key, "a");
            fenced.write(token(edge), key, "b");
            assertThatThrownBy(() -> fenced.write(token(edge - 1), key, "older")).as(policy + ": 2^53 - 1 after 2^53")
                    .isInstanceOf(dev.fencing.core.StaleTokenException.class);
            fenced.write(token(edge + 1), key, "c");
            assertThatThrownBy(() -> fenced.write(token(edge), key, "older")).as(policy + ": 2^53 after 2^53 + 1")
                    .isInstanceOf(dev.fencing.core.StaleTokenException.class);
            if (policy == Policy.STRICT) {
                assertThatThrownBy(() -> fenced.write(token(edge + 1), key, "same")).as("STRICT: 2^53 + 1 again")
                        .isInstanceOf(dev.fencing.core.StaleTokenException.class);
            } else {
                fenced.write(token(edge + 1), key, "same");
            }
            assertThat(fenced.highWaterMark(key)).hasValue(edge + 1);
        }
    }
}
