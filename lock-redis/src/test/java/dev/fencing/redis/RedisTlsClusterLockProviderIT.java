package dev.fencing.redis;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.RedisClusterTestServer;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's contract on a 3-master Redis Cluster whose nodes serve clients and each other
 * over TLS, through the lock account of {@link SecuredRedis#LOCK_RULES}: the same
 * {@code sslOptions} and URIs as a standalone server.
 */
class RedisTlsClusterLockProviderIT extends LockProviderTransportContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredRedis::secrets);

    private final RedisClusterTestServer cluster = SecuredRedis.cluster();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedisLockProvider.clusterBuilder(SecuredRedis.lockClusterUris(cluster))
                .sslOptions(SecuredRedis.sslOptions()).listener(listener).build();
    }

    /** A provider on a secured cluster of its own, stopped once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        RedisClusterTestServer own = RedisClusterTestServer.launchTls(3, SecuredRedis.certificates());
        LockProvider provider = RedisLockProvider.clusterBuilder(own.tlsSeedUris().toArray(String[]::new))
                .sslOptions(SecuredRedis.sslOptions()).build();
        own.nodes().forEach(node -> node.stop());
        return provider;
    }
}
