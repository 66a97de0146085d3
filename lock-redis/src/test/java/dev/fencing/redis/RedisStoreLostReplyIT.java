package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.ReplyDroppingProxy;
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

    /** Before the fix: the value went up by 2 (Lettuce's re-send found the version moved, the core re-applied). */
    @Test
    void aLostReplyToAnUpdateAppliesTheIncrementOnce() {
        FencedStore holder = RedisFencedStore.create(viaProxy, "atk:", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore observer = RedisFencedStore.create(direct, "atk:", Policy.MONOTONIC, FencingListener.NONE);
        String key = "counter-" + System.nanoTime();
        FencingToken token = FencingToken.of(key, 5);
        holder.write(token, key, "0"); // the script is loaded; the next store reply is the update's

        AtomicBoolean first = new AtomicBoolean(true);
        StoredValue result = holder.update(token, key, value -> {
            if (first.getAndSet(false)) {
                proxy.dropNextReply();
            }
            return increment(value);
        });

        assertThat(proxy.dropped()).as("the proxy dropped the script's reply").isEqualTo(1);
        assertThat(first).as("the change ran once").isFalse();
        assertThat(result.value()).isEqualTo("1");
        assertThat(observer.read(key)).map(StoredValue::value)
                .as("one update with one increment, its reply lost and the command re-sent by Lettuce")
                .contains("1");
    }

    /** Before the fix: STRICT's re-sent write met its own mark and the caller got "Nothing was written". */
    @Test
    void aLostReplyUnderStrictReportsTheHoldersOwnLandedWriteAsWritten() {
        FencedStore holder = RedisFencedStore.create(viaProxy, "atk:", Policy.STRICT, FencingListener.NONE);
        FencedStore observer = RedisFencedStore.create(direct, "atk:", Policy.STRICT, FencingListener.NONE);
        String key = "strict-" + System.nanoTime();
        holder.write(FencingToken.of(key, 5), key, "0");

        proxy.dropNextReply();
        holder.write(FencingToken.of(key, 6), key, "new");

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(observer.read(key)).map(StoredValue::value).as("the write did land").contains("new");
    }

    /** Before the fix: the re-send met token 6's own mark and STRICT refused the holder's landed update. */
    @Test
    void aLostReplyToAStrictUpdateAppliesItOnceAndSaysWritten() {
        FencedStore holder = RedisFencedStore.create(viaProxy, "atk:", Policy.STRICT, FencingListener.NONE);
        FencedStore observer = RedisFencedStore.create(direct, "atk:", Policy.STRICT, FencingListener.NONE);
        String key = "strict-update-" + System.nanoTime();
        observer.write(FencingToken.of(key, 5), key, "0");
        holder.read("warm-up");
        holder.write(FencingToken.of("warm-" + key, 1), "warm-" + key, "x"); // the script is cached

        AtomicBoolean first = new AtomicBoolean(true);
        StoredValue result = holder.update(FencingToken.of(key, 6), key, value -> {
            if (first.getAndSet(false)) {
                proxy.dropNextReply();
            }
            return increment(value);
        });

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(result.value()).isEqualTo("1");
        assertThat(observer.read(key)).map(StoredValue::value).contains("1");
        assertThat(observer.highWaterMark(key)).hasValue(6);
    }

    /**
     * A same-token writer updates the item in the window between the lost reply and Lettuce's re-send:
     * each increment is applied once (0 + 1 + 1 = 2), and the holder is told its own update landed.
     */
    @Test
    void aSameTokenWriterInTheWindowDoesNotMakeTheHolderApplyTwice() {
        FencedStore holder = RedisFencedStore.create(viaProxy, "atk:", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore other = RedisFencedStore.create(direct, "atk:", Policy.MONOTONIC, FencingListener.NONE);
        String key = "window-" + System.nanoTime();
        FencingToken token = FencingToken.of(key, 5);
        holder.write(token, key, "0");

        AtomicBoolean first = new AtomicBoolean(true);
        holder.update(token, key, value -> {
            if (first.getAndSet(false)) {
                proxy.dropNextReply(() -> other.update(token, key, RedisStoreLostReplyIT::increment));
            }
            return increment(value);
        });

        assertThat(proxy.dropped()).isEqualTo(1);
        assertThat(other.read(key)).map(StoredValue::value).as("two increments, each once").contains("2");
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
        FencedStore holder = RedisFencedStore.create(viaProxy, "atk:", Policy.MONOTONIC, FencingListener.NONE);
        FencedStore observer = RedisFencedStore.create(direct, "atk:", Policy.MONOTONIC, FencingListener.NONE);
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
