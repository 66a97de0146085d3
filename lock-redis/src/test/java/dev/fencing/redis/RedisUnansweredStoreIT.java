package dev.fencing.redis;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.testkit.UnansweredStoreContract;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** {@link RedisFencedStore} through a link that stops answering: the toolkit's exceptions, never Lettuce's timeout. */
class RedisUnansweredStoreIT extends UnansweredStoreContract {

    private static PartitionProxy link;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        RedisTestServer server = TestServers.redis();
        link = PartitionProxy.start(server.host(), server.port());
        client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(link.port())
                .withTimeout(Duration.ofSeconds(1)).build());
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
        link.close();
    }

    @Override
    protected FencedStore createStoreThroughLink(FencingListener listener) {
        return RedisFencedStore.builder(connection).keyPrefix("unanswered:").listener(listener).build();
    }

    @Override
    protected void cutLink() {
        link.cut();
    }

    @Override
    protected void healLink() {
        link.heal();
    }
}
