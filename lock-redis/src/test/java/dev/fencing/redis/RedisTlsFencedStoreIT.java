package dev.fencing.redis;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store's contract over TLS with the store account of {@link SecuredRedis#STORE_RULES}: its
 * script and {@code HMGET} on {@code fencing:store:*}, nothing else.
 */
class RedisTlsFencedStoreIT extends FencedStoreContract {

    private static RedisClient client;

    @BeforeAll
    static void connect() {
        client = SecuredRedis.storeClient(SecuredRedis.server());
    }

    @AfterAll
    static void disconnect() {
        client.shutdown();
    }

    @Override
    protected FencedStore createStore(Policy policy) {
        return RedisFencedStore.builder(closeAfterTest(client.connect())).policy(policy).build();
    }

    @Override
    protected String whyNoLostReplies() {
        return "the lost-reply cases run in RedisFencedStoreIT through a plaintext proxy that reads the commands;"
                + " it cannot read them inside TLS";
    }
}
