package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.ReplyDroppingProxy;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ATTACK (adversarial review, branch attack-stores): unclear replies on RedisFencedStore. The store
 * script runs, the connection drops before its reply arrives, and Lettuce (at-least-once by default:
 * commands in flight are re-sent after the reconnect) runs the script again. The replay finds the
 * version moved on — by the first run — and answers "changed"; the core reloads and applies the
 * change a second time (MONOTONIC), or calls the holder's own landed write stale (STRICT).
 */
class AttackRedisStoreUnclearReplyIT {

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

    /** BREAKS "no update is applied twice": one increment, a lost reply, the value goes up by 2. */
    @Test
    void aLostReplyToAnUpdateMakesTheStoreApplyTheIncrementTwice() {
        FencedStore holder = RedisFencedStore.create(viaProxy, "atk:", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore observer = RedisFencedStore.create(direct, "atk:", Policy.MONOTONIC, FencingListener.NONE);
        String key = "counter-" + System.nanoTime();
        FencingToken token = FencingToken.of(key, 5);
        holder.write(key, "0", token); // the script is loaded; the next store reply is the update's

        AtomicBoolean first = new AtomicBoolean(true);
        holder.update(key, token, value -> {
            if (first.getAndSet(false)) {
                proxy.dropNextReply();
            }
            return increment(value);
        });

        assertThat(proxy.dropped()).as("the proxy dropped the script's reply").isEqualTo(1);
        assertThat(observer.read(key)).map(StoredValue::value)
                .as("one update with one increment, its reply lost and the command re-sent by Lettuce")
                .contains("1");
    }

    /** BREAKS "a refusal is real": under STRICT the holder's own landed write is reported as refused. */
    @Test
    void aLostReplyUnderStrictReportsTheHoldersOwnLandedWriteAsStale() {
        FencedStore holder = RedisFencedStore.create(viaProxy, "atk:", Policy.STRICT, FencingListener.NONE);
        FencedStore observer = RedisFencedStore.create(direct, "atk:", Policy.STRICT, FencingListener.NONE);
        String key = "strict-" + System.nanoTime();
        holder.write(key, "0", FencingToken.of(key, 5));

        proxy.dropNextReply();
        Throwable failure = null;
        try {
            holder.write(key, "new", FencingToken.of(key, 6));
        } catch (RuntimeException e) {
            failure = e;
        }
        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(observer.read(key)).map(StoredValue::value).as("the write did land").contains("new");
        assertThat(failure).as("the caller is told the write it made was refused").isNull();
    }
}
