package dev.fencing.redis;

import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.UUID;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Guarantee 9 through lock names on the Redis store (from the adversarial review), two clients as
 * two processes: the script answers a foreign token with 'r:' + the bound name, so names that look
 * like replies must stay apart. (A name with an unpaired surrogate, which has no UTF-8 bytes, is
 * refused before any write for every store: FencedStoreContract.)
 */
class RedisLockNameAttackIT {

    @Test
    void lockNamesThatLookLikeScriptRepliesAreKeptApart() {
        RedisClient client = RedisClient.create(TestServers.redis().uri());
        try (StatefulRedisConnection<String, String> one = client.connect();
                StatefulRedisConnection<String, String> two = client.connect()) {
            FencedStore first = RedisFencedStore.builder(one).keyPrefix("attack:").build();
            FencedStore second = RedisFencedStore.builder(two).keyPrefix("attack:").build();
            SoftAssertions softly = new SoftAssertions();

            String replyLike = "k-" + UUID.randomUUID();
            first.write(FencingToken.of("r:0", 5), replyLike, "bound by 'r:0'");
            softly.assertThat(catchThrowable(() -> second.write(FencingToken.of("0", 6), replyLike, "x")))
                    .as("lock '0' on a key bound to 'r:0'").isInstanceOf(ForeignTokenException.class);
            softly.assertThat(catchThrowable(() -> second.write(FencingToken.of("r:", 6), replyLike, "x")))
                    .as("lock 'r:' on a key bound to 'r:0'").isInstanceOf(ForeignTokenException.class);
            softly.assertThat(catchThrowable(() -> first.update(FencingToken.of("r:0", 7), replyLike, v -> "own")))
                    .as("the binding lock 'r:0' itself").isNull();

            softly.assertAll();
        } finally {
            client.shutdown();
        }
    }
}
