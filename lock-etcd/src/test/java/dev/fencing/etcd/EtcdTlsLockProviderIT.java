package dev.fencing.etcd;


import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderTransportContract;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.LaggingProxy;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's round trips ({@link LockProviderTransportContract}; the whole contract runs in
 * plain text) as docs/security.md sets it up: {@code https://} with the server's
 * certificate verified, a client certificate, and the lock account of {@link SecuredEtcd} — a role
 * with readwrite on the key prefix's range and nothing else.
 */
class EtcdTlsLockProviderIT extends LockProviderTransportContract {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredEtcd::secrets);

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return SecuredEtcd.lockProvider().listener(listener).requestTimeout(Duration.ofSeconds(3)).build();
    }

    /** Built through a proxy that is then closed: etcd is up, this client cannot reach it. */
    @Override
    protected LockProvider createUnreachableProvider() {
        LaggingProxy proxy = LaggingProxy.start("127.0.0.1", SecuredEtcd.server().port());
        LockProvider cutOff = EtcdLockProvider.builder("https://127.0.0.1:" + proxy.port())
                .sslContext(SecuredEtcd.sslContext()).credentials(SecuredEtcd.LOCK_USER, SecuredEtcd.LOCK_PASSWORD)
                .requestTimeout(Duration.ofSeconds(5)).build();
        proxy.close();
        return cutOff;
    }
}
