package dev.fencing.zookeeper;

import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.LaggingProxy;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's round trips ({@link LockProviderTransportContract}; the whole contract runs in
 * plain text) as docs/security.md sets it up: ZooKeeper's Netty TLS client with the
 * server's certificate and host verified and a client certificate, digest authentication as the
 * lock account, and every znode it creates carrying {@link SecuredZooKeeper#LOCK_ACL} under a root
 * whose ACL lets only that account in.
 */
class ZooKeeperTlsLockProviderIT extends LockProviderTransportContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredZooKeeper::secrets);

    /**
     * A lease counts as valid only as long as the ensemble surely keeps its session: with the 10 s default session
     * at most about 7.4 s, and at least 5.4 s while the session checks keep up; 2 s on a busy machine still proves
     * the renewal went past the 600 ms it replaced.
     */
    @Override
    protected Duration leftAfterARenewalTo30Seconds() {
        return Duration.ofSeconds(2);
    }

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return SecuredZooKeeper.lockProvider().listener(listener).build();
    }

    /** Built through a proxy that is then closed: ZooKeeper is up, this client cannot reach it. */
    @Override
    protected LockProvider createUnreachableProvider() {
        String secure = SecuredZooKeeper.server().secureConnectString();
        LaggingProxy proxy = LaggingProxy.start("127.0.0.1", Integer.parseInt(secure.substring(secure.indexOf(':') + 1)));
        // a short connection timeout keeps the unreachable attempt short; a busy machine may miss it while the
        // server still answers, so the build is tried until it connects
        LockProvider cutOff = await().atMost(Duration.ofSeconds(60)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> ZooKeeperLockProvider.builder("127.0.0.1:" + proxy.port())
                        .zkClientConfig(SecuredZooKeeper.tls())
                        .authorization("digest", (SecuredZooKeeper.LOCK_USER + ":" + SecuredZooKeeper.LOCK_PASSWORD)
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8))
                        .acl(SecuredZooKeeper.LOCK_ACL).connectTimeout(Duration.ofSeconds(2)).build(), built -> true);
        proxy.close();
        return cutOff;
    }
}
