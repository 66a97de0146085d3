package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.ReplyDroppingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lost replies on RedisFencedStore (found by the adversarial review, branch attack-stores: before the
 * fix, the store script had no memory of its own runs). The script runs, the connection drops before
 * its reply arrives, and Lettuce (at-least-once by default: commands in flight are re-sent after the
 * reconnect) runs the script again. The guarantee: the write is applied at most once, and the caller
 * is told "written" (the re-sent script finds its first run's marker) or, if the reply is lost for
 * good, {@link WriteOutcomeUnknownException} — never a second application, never "Nothing was written"
 * for a write that landed.
 *
 * <p>The lost replies Lettuce recovers from are the contract's ({@link RedisFencedStoreIT}); this is
 * the case beyond it: a client that does not reconnect, so the reply is lost for good.
 */
class RedisStoreLostReplyIT {

    private ReplyDroppingProxy proxy;
    private RedisClient viaProxyClient;
    private StatefulRedisConnection<String, String> viaProxy;
    private RedisClient directClient;
    private StatefulRedisConnection<String, String> direct;

    @BeforeEach
    void connect() {
        RedisTestServer redis = TestServers.redis();
        proxy = ReplyDroppingProxy.start(redis.host(), redis.port());
        viaProxyClient = RedisClient.create(proxy.redisUri());
        viaProxy = viaProxyClient.connect();
        directClient = RedisClient.create(redis.uri());
        direct = directClient.connect();
    }

    @AfterEach
    void disconnect() {
        viaProxy.close();
        viaProxyClient.shutdown();
        direct.close();
        directClient.shutdown();
        proxy.close();
    }

    private static String increment(Optional<String> value) {
        return Integer.toString(Integer.parseInt(value.orElse("0")) + 1);
    }

    /**
     * Without reconnects the reply is lost for good and the marker cannot be checked on the dead
     * connection: the caller gets {@link WriteOutcomeUnknownException}, and the store was not asked
     * to write a second time.
     */
    @Test
    void aReplyLostForGoodIsReportedAsUnknownAndNotRetried() {
        viaProxy.close();
        viaProxyClient.setOptions(ClientOptions.builder().autoReconnect(false).build());
        viaProxy = viaProxyClient.connect();
        FencedStore holder = RedisFencedStore.builder(viaProxy).keyPrefix("atk:").build();
        FencedStore observer = RedisFencedStore.builder(direct).keyPrefix("atk:").build();
        String key = "gone-" + System.nanoTime();
        FencingToken token = FencingToken.of(key, 5);
        holder.write(token, key, "0");

        AtomicBoolean first = new AtomicBoolean(true);
        assertThatThrownBy(() -> holder.update(token, key, value -> {
            if (first.getAndSet(false)) {
                proxy.dropNextReply();
            }
            return increment(value);
        })).isInstanceOf(WriteOutcomeUnknownException.class).hasMessageContaining("Re-read '" + key + "'");

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(observer.read(key)).map(StoredValue::value).as("applied at most once").contains("1");
    }
}
