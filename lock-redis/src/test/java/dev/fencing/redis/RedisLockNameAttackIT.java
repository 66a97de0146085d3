package dev.fencing.redis;

import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.UUID;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Attacks on guarantee 9 through lock names on the Redis store, two clients as two processes: the
 * script's reply convention ('r:' + bound name) with names that look like replies, and a name
 * with an unpaired surrogate, which has no UTF-8 bytes.
 */
class RedisLockNameAttackIT {

    @Test
    void lockNamesThatLookLikeScriptRepliesOrHaveNoUtf8AreKeptApart() {
        RedisClient client = RedisClient.create(TestServers.redis().uri());
        try (StatefulRedisConnection<String, String> one = client.connect();
                StatefulRedisConnection<String, String> two = client.connect()) {
            FencedStore first = RedisFencedStore.create(one, "attack:", Policy.MONOTONIC, FencingListener.NONE);
            FencedStore second = RedisFencedStore.create(two, "attack:", Policy.MONOTONIC, FencingListener.NONE);
            SoftAssertions softly = new SoftAssertions();

            String replyLike = "k-" + UUID.randomUUID();
            first.write(FencingToken.of("r:0", 5), replyLike, "bound by 'r:0'");
            softly.assertThat(catchThrowable(() -> second.write(FencingToken.of("0", 6), replyLike, "x")))
                    .as("lock '0' on a key bound to 'r:0'").isInstanceOf(ForeignTokenException.class);
            softly.assertThat(catchThrowable(() -> second.write(FencingToken.of("r:", 6), replyLike, "x")))
                    .as("lock 'r:' on a key bound to 'r:0'").isInstanceOf(ForeignTokenException.class);
            softly.assertThat(catchThrowable(() -> first.update(FencingToken.of("r:0", 7), replyLike, v -> "own")))
                    .as("the binding lock 'r:0' itself").isNull();

            String cutKey = "k-" + UUID.randomUUID();
            String cut = "order-\uD83D\uDE00".substring(0, 7);
            first.write(FencingToken.of(cut, 5), cutKey, "bound by 'order-\\uD83D'");
            Throwable own = catchThrowable(() -> first.update(FencingToken.of(cut, 6), cutKey, v -> "own"));
            softly.assertThat(own == null ? null : own.getClass().getSimpleName())
                    .as("an update by the lock 'order-\\uD83D' that bound the key").isNull();
            softly.assertThat(catchThrowable(() -> second.write(FencingToken.of("order-?", 7), cutKey, "x")))
                    .as("lock 'order-?' on a key bound to 'order-\\uD83D'").isInstanceOf(ForeignTokenException.class);
            softly.assertAll();
        } finally {
            client.shutdown();
        }
    }
}
