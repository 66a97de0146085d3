package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import dev.fencing.testkit.servers.TestServers;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the lock account of docs/security.md cannot do, and how TLS fails: every refusal here is one
 * the guide's threat table relies on. The accounts and their roles are {@link SecuredEtcd}'s.
 */
class EtcdLeastPrivilegeIT {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredEtcd::secrets);

    private final EtcdTestServer etcd = SecuredEtcd.server();

    @Test
    void theLockAccountReachesOnlyItsPrefix() throws Exception {
        try (Client client = SecuredEtcd.client(SecuredEtcd.LOCK_USER, SecuredEtcd.LOCK_PASSWORD)) {
            KV kv = client.getKVClient();
            assertDenied(kv.put(SecuredEtcd.bytes("orders/1"), SecuredEtcd.bytes("x")));
            assertDenied(kv.delete(SecuredEtcd.bytes("other/r/lock")));
            assertDenied(kv.get(SecuredEtcd.bytes("\0"), GetOption.builder().withRange(SecuredEtcd.bytes("\0"))
                    .build())); // the whole keyspace
            assertDenied(client.getAuthClient().userAdd(SecuredEtcd.bytes("intruder"), SecuredEtcd.bytes("x")));
            assertDenied(client.getAuthClient().roleGrantPermission(SecuredEtcd.bytes(SecuredEtcd.LOCK_USER),
                    SecuredEtcd.bytes("\0"), SecuredEtcd.bytes("\0"), io.etcd.jetcd.auth.Permission.Type.READWRITE));
        }
    }

    @Test
    void anotherTenantCannotDeleteAHoldersKeyNorRevokeItsLease() throws Exception {
        String resource = "lp-" + UUID.randomUUID();
        try (EtcdLockProvider provider = SecuredEtcd.lockProvider().build();
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
                Client locks = SecuredEtcd.client(SecuredEtcd.LOCK_USER, SecuredEtcd.LOCK_PASSWORD);
                Client other = SecuredEtcd.client(SecuredEtcd.OTHER_USER, SecuredEtcd.OTHER_PASSWORD)) {
            KeyValue held = locks.getKVClient().get(SecuredEtcd.bytes(provider.lockKey(resource)))
                    .get(10, TimeUnit.SECONDS).getKvs().get(0);
            assertDenied(other.getKVClient().delete(held.getKey()));
            assertDenied(other.getKVClient().put(held.getKey(), SecuredEtcd.bytes("mine")));
            assertDenied(other.getKVClient().get(held.getKey()));
            assertDenied(other.getLeaseClient().revoke(held.getLease()));
            lease.renew(Duration.ofSeconds(30)); // throws LeaseLostException if the key or its lease went
            assertThat(provider.inspect(resource).orElseThrow().holder()).contains(lease.ownerId());
        }
    }

    /**
     * What docs/security.md says another tenant can still do: etcd checks no permission on lease
     * keep-alives (a crashed holder's lease, and lock, can be kept alive past its TTL by anyone who
     * knows the lease id), and before 3.4.26 / 3.5.9 a lease's time-to-live names the keys attached
     * to it (CVE-2023-32082), which the provider warns of when it is built.
     */
    @Test
    void anotherTenantCanKeepAHoldersLeaseAliveAndOnOldServersReadItsKeyNames() throws Exception {
        String resource = "lp-keepalive-" + UUID.randomUUID();
        try (EtcdLockProvider provider = SecuredEtcd.lockProvider().build();
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
                Client locks = SecuredEtcd.client(SecuredEtcd.LOCK_USER, SecuredEtcd.LOCK_PASSWORD);
                Client other = SecuredEtcd.client(SecuredEtcd.OTHER_USER, SecuredEtcd.OTHER_PASSWORD)) {
            KeyValue held = locks.getKVClient().get(SecuredEtcd.bytes(provider.lockKey(resource)))
                    .get(10, TimeUnit.SECONDS).getKvs().get(0);
            assertThat(other.getLeaseClient().keepAliveOnce(held.getLease()).get(10, TimeUnit.SECONDS).getTTL())
                    .as("another tenant's keep-alive of the holder's lease").isPositive();

            String endpoint = etcd.endpoint().toString();
            String version = locks.getMaintenanceClient().statusMember(endpoint).get(10, TimeUnit.SECONDS).getVersion();
            assertThat(provider.serverVersionWarning().get(10, TimeUnit.SECONDS)).as("the provider's warning")
                    .isEqualTo(EtcdServerVersion.warning(version, endpoint));
            CompletableFuture<io.etcd.jetcd.lease.LeaseTimeToLiveResponse> timeToLive = other.getLeaseClient()
                    .timeToLive(held.getLease(), io.etcd.jetcd.options.LeaseOption.builder().withAttachedKeys().build());
            if (EtcdServerVersion.warning(version, endpoint).isPresent()) {
                assertThat(timeToLive.get(10, TimeUnit.SECONDS).getKeys()).as("keys named to another tenant on " + version)
                        .contains(held.getKey());
            } else {
                assertDenied(timeToLive);
            }
            lease.renew(Duration.ofSeconds(30)); // the holder keeps its lock
        }
    }

    @Test
    void theClientCertificateAloneIsNoAccount() {
        // with --client-cert-auth and no password, etcd takes the user from the certificate's CN (fencing-client),
        // which is no user here: every request is refused
        assertThatThrownBy(() -> EtcdLockProvider.builder(etcd.endpoint()).sslContext(SecuredEtcd.sslContext())
                .requestTimeout(Duration.ofSeconds(5)).build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("RBAC refused");
    }

    @Test
    void aServerCertificateFromAnotherAuthorityFailsTheConnection() {
        TestCertificates stranger = TestCertificates.create();
        long started = System.nanoTime();
        assertThatThrownBy(() -> SecuredEtcd.lockProvider().sslContext(SecuredEtcd.sslContext(stranger))
                .requestTimeout(Duration.ofSeconds(3)).build())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("the TLS handshake failed, the server's certificate is not signed by an authority")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredEtcd.LOCK_PASSWORD));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aClientCertificateFromAnotherAuthorityIsRefused() throws Exception {
        TestCertificates stranger = TestCertificates.create();
        var foreignClient = io.grpc.netty.GrpcSslContexts.forClient()
                .trustManager(SecuredEtcd.certificates().caCertificate().toFile())
                .keyManager(stranger.clientCertificate().toFile(), stranger.clientKey().toFile()).build();
        assertThatThrownBy(() -> SecuredEtcd.lockProvider().sslContext(foreignClient)
                .requestTimeout(Duration.ofSeconds(3)).build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("TLS handshake failed")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredEtcd.LOCK_PASSWORD));
    }

    @Test
    void aPlaintextEndpointToTheTlsPortFails() {
        assertThatThrownBy(() -> EtcdLockProvider.builder("http://127.0.0.1:" + etcd.port())
                .credentials(SecuredEtcd.LOCK_USER, SecuredEtcd.LOCK_PASSWORD).requestTimeout(Duration.ofSeconds(2))
                .build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("on a port that expects TLS")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredEtcd.LOCK_PASSWORD));
    }

    @Test
    void anHttpsEndpointNeverFallsBackToPlaintext() {
        EtcdTestServer plaintext = TestServers.etcd();
        assertThatThrownBy(() -> EtcdLockProvider.builder("https://127.0.0.1:" + plaintext.port())
                .sslContext(SecuredEtcd.sslContext()).requestTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("never falls back to plaintext");
    }

    @Test
    void tlsSettingsForPlaintextEndpointsAreRefused() {
        assertThatThrownBy(() -> EtcdLockProvider.builder("http://127.0.0.1:" + etcd.port())
                .sslContext(SecuredEtcd.sslContext()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http:// (plaintext)");
        try (Client own = Client.builder().endpoints(etcd.endpoint()).build()) {
            assertThatThrownBy(() -> EtcdLockProvider.builder(own).credentials("u", "p").build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ClientBuilder");
        }
    }

    @Test
    void aWrongPasswordFailsWithoutNamingIt() {
        String wrong = "wrong-" + UUID.randomUUID();
        assertThatThrownBy(() -> SecuredEtcd.lockProvider().credentials(SecuredEtcd.LOCK_USER, wrong)
                .requestTimeout(Duration.ofSeconds(5)).build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("refused the credentials")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(wrong));
    }

    @Test
    void credentialsInAnEndpointAreRefusedWithoutNamingThem() {
        assertThatThrownBy(() -> EtcdLockProvider.builder("https://" + SecuredEtcd.LOCK_USER + ":"
                + SecuredEtcd.LOCK_PASSWORD + "@127.0.0.1:" + etcd.port()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credentials(user, password)")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredEtcd.LOCK_PASSWORD));
    }

    @Test
    void theProviderNamesNoSecret() {
        try (EtcdLockProvider provider = SecuredEtcd.lockProvider().build()) {
            assertThat(provider.toString()).doesNotContain(SecuredEtcd.LOCK_PASSWORD);
        }
    }

    private static void assertDenied(CompletableFuture<?> request) {
        assertThatThrownBy(() -> request.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("permission denied");
    }
}
