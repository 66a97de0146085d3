package dev.fencing.etcd;

import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.LaggingProxy;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider's contract as docs/security.md sets it up: {@code https://} with the server's
 * certificate verified, a client certificate, and the lock account of {@link SecuredEtcd} — a role
 * with readwrite on the key prefix's range and nothing else.
 */
class EtcdTlsLockProviderIT extends LockProviderContract {

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

    /** The acquire transaction's reply is never delivered (a jetcd client of the lock account with an interceptor). */
    @Override
    protected Optional<UnclearReplies> unclearReplies() {
        HoldTxnReplies hold = new HoldTxnReplies();
        Client client = Client.builder().endpoints(SecuredEtcd.server().endpoints().toArray(String[]::new))
                .sslContext(SecuredEtcd.sslContext()).user(SecuredEtcd.bytes(SecuredEtcd.LOCK_USER))
                .password(SecuredEtcd.bytes(SecuredEtcd.LOCK_PASSWORD)).interceptor(hold).build();
        EtcdLockProvider held = await().atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> EtcdLockProvider.builder(client).requestTimeout(Duration.ofMillis(500)).build(),
                        provider -> true);
        return Optional.of(new UnclearReplies() {
            @Override
            public LockProvider provider() {
                return held;
            }

            @Override
            public void holdReplies() {
                hold.hold();
            }

            @Override
            public void passReplies() {
                hold.pass();
            }

            @Override
            public void close() {
                held.close();
                client.close();
            }
        });
    }
}
