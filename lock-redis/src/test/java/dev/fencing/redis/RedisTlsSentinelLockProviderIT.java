package dev.fencing.redis;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.RedisSentinelTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's contract through a Redis Sentinel over TLS ({@code rediss-sentinel://}) to a
 * master over TLS, with the lock account of {@link SecuredRedis#LOCK_RULES}: the same
 * {@code sslOptions} serve the Sentinel and the master.
 */
class RedisTlsSentinelLockProviderIT extends LockProviderTransportContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredRedis::secrets);

    private final RedisSentinelTestServer sentinel = SecuredRedis.sentinel();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedisLockProvider.builder(sentinel.tlsUri(SecuredRedis.LOCK_USER + ":" + SecuredRedis.LOCK_PASSWORD + "@"))
                .sslOptions(SecuredRedis.sslOptions()).listener(listener).build();
    }

    /** A provider through a Sentinel of its own to a master of its own, both stopped once it is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        RedisTestServer master = SecuredRedis.launch();
        RedisSentinelTestServer own = RedisSentinelTestServer.launchTls(SecuredRedis.certificates(), master, "own");
        LockProvider provider = RedisLockProvider.builder(own.tlsUri(SecuredRedis.LOCK_USER + ":"
                + SecuredRedis.LOCK_PASSWORD + "@")).sslOptions(SecuredRedis.sslOptions()).build();
        own.stop();
        master.stop();
        return provider;
    }
}
