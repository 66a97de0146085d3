package dev.fencing.redis;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.RedisTestServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Redlock's contract over three independent masters reached over TLS with the lock account of
 * {@link SecuredRedis#LOCK_RULES}; node timeout 1 s for the reason {@link RedlockProviderIT} gives.
 */
class RedisTlsRedlockIT extends LockProviderTransportContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredRedis::secrets);

    private final List<RedisTestServer> nodes = SecuredRedis.redlockNodes();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedlockProvider.builder(SecuredRedis.lockUris(nodes)).sslOptions(SecuredRedis.sslOptions())
                .requestTimeout(Duration.ofSeconds(1)).listener(listener).build();
    }

    /** A provider on three secured nodes of its own, all stopped once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        List<RedisTestServer> own = List.of(SecuredRedis.launch(), SecuredRedis.launch(), SecuredRedis.launch());
        LockProvider provider = RedlockProvider.builder(SecuredRedis.lockUris(own))
                .sslOptions(SecuredRedis.sslOptions()).build();
        own.forEach(RedisTestServer::stop);
        return provider;
    }
}
