package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.TestCertificates;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the ACL of docs/security.md keeps out, and how TLS fails: another digest account, a client
 * with no account (over TLS with the same client certificate, and over plaintext) cannot delete a
 * holder's znode, create in the lock's parent, or change its ACL. Accounts are
 * {@link SecuredZooKeeper}'s.
 */
class ZooKeeperLeastPrivilegeIT {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredZooKeeper::secrets);

    private final ZooKeeperTestServer zooKeeper = SecuredZooKeeper.server();

    @Test
    void theProvidersZnodesCarryTheLockAccountsAclOnly() throws Exception {
        String resource = "lp-" + UUID.randomUUID();
        try (ZooKeeperLockProvider provider = SecuredZooKeeper.lockProvider().build();
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
                CuratorFramework locks = SecuredZooKeeper.client(SecuredZooKeeper.LOCK_USER,
                        SecuredZooKeeper.LOCK_PASSWORD)) {
            String parent = provider.lockPath(resource);
            String holder = parent + "/" + locks.getChildren().forPath(parent).get(0);
            assertThat(locks.getACL().forPath(parent)).isEqualTo(SecuredZooKeeper.LOCK_ACL);
            assertThat(locks.getACL().forPath(holder)).isEqualTo(SecuredZooKeeper.LOCK_ACL);
            assertThat(locks.getACL().forPath(SecuredZooKeeper.ROOT)).isEqualTo(SecuredZooKeeper.LOCK_ACL);
            assertThat(lease.token().value()).isEqualTo(locks.checkExists().forPath(holder).getCzxid());
        }
    }

    @Test
    void anotherAccountCannotTakeAHoldersLock() throws Exception {
        try (CuratorFramework other = SecuredZooKeeper.client(SecuredZooKeeper.OTHER_USER,
                SecuredZooKeeper.OTHER_PASSWORD)) {
            assertOthersCannotTakeTheLock(other);
        }
    }

    @Test
    void aTlsClientWithoutAnAccountCannotTakeAHoldersLock() throws Exception {
        // the same client certificate, no digest: ZooKeeper's x509 identity of the certificate is not in the ACL
        try (CuratorFramework anonymous = SecuredZooKeeper.client(null, null)) {
            assertOthersCannotTakeTheLock(anonymous);
        }
    }

    @Test
    void aPlaintextClientWithoutAnAccountCannotTakeAHoldersLock() throws Exception {
        try (CuratorFramework anonymous = SecuredZooKeeper.anonymousPlaintextClient()) {
            assertOthersCannotTakeTheLock(anonymous);
        }
    }

    private void assertOthersCannotTakeTheLock(CuratorFramework intruder) throws Exception {
        String resource = "lp-" + UUID.randomUUID();
        try (ZooKeeperLockProvider provider = SecuredZooKeeper.lockProvider().build();
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
                CuratorFramework locks = SecuredZooKeeper.client(SecuredZooKeeper.LOCK_USER,
                        SecuredZooKeeper.LOCK_PASSWORD)) {
            String parent = provider.lockPath(resource);
            String holder = parent + "/" + locks.getChildren().forPath(parent).get(0);
            assertNoAuth(() -> intruder.delete().forPath(holder));
            assertNoAuth(() -> intruder.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(parent + "/_c_x-lock-"));
            assertNoAuth(() -> intruder.getChildren().forPath(parent));
            assertNoAuth(() -> intruder.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(parent));
            assertNoAuth(() -> intruder.create().forPath(SecuredZooKeeper.ROOT + "/" + resource + "-squat"));
            lease.renew(Duration.ofSeconds(30)); // throws LeaseLostException if the znode went
            assertThat(provider.inspect(resource).orElseThrow().holder()).contains(lease.ownerId());
        }
    }

    /**
     * Why the guide's ACL names the digest identity instead of {@code CREATOR_ALL_ACL}: over TLS
     * with client certificates, ZooKeeper (3.9.5 here) expands "the creator" to every identity of
     * the session, the certificate's {@code x509} one too, which every client holding a
     * certificate of that subject shares: such a client, with no account, creates and deletes
     * children of the znode (a holder's, were it a lock's parent) and can rewrite its ACL.
     */
    @Test
    void aCreatorOnlyAclOverTlsAlsoLetsInEveryClientWithTheSameCertificate() throws Exception {
        String path = SecuredZooKeeper.ROOT + "/creator-only-" + UUID.randomUUID();
        try (CuratorFramework locks = SecuredZooKeeper.client(SecuredZooKeeper.LOCK_USER,
                SecuredZooKeeper.LOCK_PASSWORD);
                CuratorFramework anonymous = SecuredZooKeeper.client(null, null)) {
            locks.create().withACL(ZooDefs.Ids.CREATOR_ALL_ACL).forPath(path);
            assertThat(locks.getACL().forPath(path)).extracting(acl -> acl.getId().getScheme())
                    .containsExactlyInAnyOrder("digest", "x509");
            anonymous.create().forPath(path + "/squatter");
            anonymous.delete().forPath(path + "/squatter");
            anonymous.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(path);
            locks.delete().forPath(path);
        }
    }

    @Test
    void aServerCertificateFromAnotherAuthorityFailsTheConnection() {
        TestCertificates stranger = TestCertificates.create();
        long started = System.nanoTime();
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(zooKeeper.secureConnectString())
                .zkClientConfig(SecuredZooKeeper.tls(stranger, SecuredZooKeeper.certificates()))
                .authorization("digest", lockAuth()).connectTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("the TLS handshake failed, the server's certificate is not signed by an authority")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredZooKeeper.LOCK_PASSWORD));
        // bounded by the 2 s connection timeout: at most ten times it, however busy the machine
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
    }

    @Test
    void aClientCertificateFromAnotherAuthorityIsRefused() {
        TestCertificates stranger = TestCertificates.create();
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(zooKeeper.secureConnectString())
                .zkClientConfig(SecuredZooKeeper.tls(SecuredZooKeeper.certificates(), stranger))
                .authorization("digest", lockAuth()).connectTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("TLS handshake failed")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredZooKeeper.LOCK_PASSWORD));
    }

    @Test
    void aSecureClientNeverFallsBackToPlaintext() {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(zooKeeper.connectString())
                .zkClientConfig(SecuredZooKeeper.tls()).authorization("digest", lockAuth())
                .connectTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("TLS handshake failed")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredZooKeeper.LOCK_PASSWORD));
    }

    @Test
    void aPlaintextClientToTheSecurePortFails() {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(zooKeeper.secureConnectString())
                .authorization("digest", lockAuth()).connectTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(LockUnavailableException.class)
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredZooKeeper.LOCK_PASSWORD));
    }

    @Test
    void aWrongPasswordCannotTakeTheLockAndIsNotNamed() {
        String wrong = "wrong-" + UUID.randomUUID();
        // this connection must succeed: a generous bound (a TLS handshake beside stress-ng took over 2 s)
        assertThatThrownBy(() -> {
            try (ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(zooKeeper.secureConnectString())
                    .zkClientConfig(SecuredZooKeeper.tls())
                    .authorization("digest", (SecuredZooKeeper.LOCK_USER + ":" + wrong).getBytes(StandardCharsets.UTF_8))
                    .acl(SecuredZooKeeper.LOCK_ACL).connectTimeout(Duration.ofSeconds(30)).build()) {
                provider.tryAcquire("lp-" + UUID.randomUUID(), LeaseOptions.ofDefaults());
            }
        }).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("refused the create of the contender znode: the ACL of /fencing/locks")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(wrong));
    }

    @Test
    void theProviderNamesNoSecret() {
        try (ZooKeeperLockProvider provider = SecuredZooKeeper.lockProvider().build()) {
            assertThat(provider.toString()).doesNotContain(SecuredZooKeeper.LOCK_PASSWORD);
        }
    }

    private static byte[] lockAuth() {
        return (SecuredZooKeeper.LOCK_USER + ":" + SecuredZooKeeper.LOCK_PASSWORD).getBytes(StandardCharsets.UTF_8);
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void assertNoAuth(Call call) {
        assertThatThrownBy(call::run).isInstanceOf(KeeperException.NoAuthException.class);
    }
}
