package dev.fencing.redis;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.RedisTestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's round trips ({@link LockProviderTransportContract}; the whole contract runs in
 * plain text) as docs/security.md sets it up: {@code rediss://} with the server's
 * certificate and host name verified, a client certificate, and the lock account of
 * {@link SecuredRedis#LOCK_RULES} — no other command, key or channel.
 */
class RedisTlsLockProviderIT extends LockProviderTransportContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredRedis::secrets);

    private final RedisTestServer redis = SecuredRedis.server();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedisLockProvider.builder(SecuredRedis.uri(redis, SecuredRedis.LOCK_USER, SecuredRedis.LOCK_PASSWORD))
                .sslOptions(SecuredRedis.sslOptions()).listener(listener).build();
    }

    /** A provider on a secured Redis of its own, stopped once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        RedisTestServer own = SecuredRedis.launch();
        LockProvider provider = RedisLockProvider.builder(SecuredRedis.uri(own, SecuredRedis.LOCK_USER,
                SecuredRedis.LOCK_PASSWORD)).sslOptions(SecuredRedis.sslOptions()).build();
        own.stop();
        return provider;
    }
}
