package dev.fencing.redis;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.testkit.FencedStoreContract;
import dev.fencing.testkit.SecretScan;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store's contract over TLS with the store account of {@link SecuredRedis#STORE_RULES}: its
 * script and {@code HMGET} on {@code fencing:store:*}, nothing else.
 */
class RedisTlsFencedStoreIT extends FencedStoreContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredRedis::secrets);

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
