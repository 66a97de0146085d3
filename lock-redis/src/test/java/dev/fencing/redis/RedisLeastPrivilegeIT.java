package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the accounts of docs/security.md cannot do, and how TLS fails: every refusal here is one
 * the guide's threat table relies on. Two clients of different accounts on one server.
 */
class RedisLeastPrivilegeIT {

    /** Fails the class if its log output names a password or a key-store passphrase. */
    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredRedis::secrets);

    private final RedisTestServer redis = SecuredRedis.server();

    @Test
    void theLockAccountReachesOnlyLockKeysAndChannels() {
        String resource = "lp-" + UUID.randomUUID();
        try (RedisLockProvider provider = lockProvider();
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            RedisClient client = client(SecuredRedis.LOCK_USER, SecuredRedis.LOCK_PASSWORD);
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> locks = connection.sync();
                assertThat(locks.get(provider.tokenKey(resource))).isEqualTo(Long.toString(lease.token().value()));
                assertRefused(() -> locks.hget("fencing:store:accounts", "v"), "NOPERM");
                assertRefused(() -> locks.set("orders:1", "x"), "NOPERM");
                assertRefused(() -> locks.flushall(), "NOPERM");
                assertRefused(() -> locks.configSet("appendonly", "no"), "NOPERM");
                assertRefused(() -> locks.keys("*"), "NOPERM");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void theStoreAccountCannotTouchALockOrItsTokenCounter() {
        String resource = "lp-" + UUID.randomUUID();
        try (RedisLockProvider provider = lockProvider();
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            RedisClient client = SecuredRedis.storeClient(redis);
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> store = connection.sync();
                assertRefused(() -> store.set(provider.tokenKey(resource), "1"), "NOPERM");
                assertRefused(() -> store.del(provider.lockKey(resource)), "NOPERM");
                assertRefused(() -> store.eval("return redis.call('SET', KEYS[1], '1')",
                        io.lettuce.core.ScriptOutputType.STATUS, provider.tokenKey(resource)), "NOPERM");
            } finally {
                client.shutdown();
            }
            assertThat(redis.command("GET", provider.tokenKey(resource))).isEqualTo(Long.toString(lease.token().value()));
        }
    }

    @Test
    void aServerCertificateFromAnotherAuthorityFailsTheConnection() {
        TestCertificates stranger = TestCertificates.create();
        SslOptions trustingTheStranger = SslOptions.builder().jdkSslProvider()
                .trustManager(stranger.caCertificate().toFile()).build();
        assertThatThrownBy(() -> RedisLockProvider.builder(
                SecuredRedis.uri(redis, SecuredRedis.LOCK_USER, SecuredRedis.LOCK_PASSWORD))
                .sslOptions(trustingTheStranger).connectTimeout(Duration.ofSeconds(5)).build())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("TLS handshake failed, the server's certificate is not signed by an authority")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredRedis.LOCK_PASSWORD));
    }

    @Test
    void aClientCertificateFromAnotherAuthorityIsRefused() {
        TestCertificates stranger = TestCertificates.create();
        SslOptions foreignClient = SslOptions.builder().jdkSslProvider()
                .trustManager(SecuredRedis.certificates().caCertificate().toFile())
                .keyManager(stranger.clientCertificate().toFile(), stranger.clientKey().toFile(), null).build();
        assertThatThrownBy(() -> RedisLockProvider.builder(
                SecuredRedis.uri(redis, SecuredRedis.LOCK_USER, SecuredRedis.LOCK_PASSWORD))
                .sslOptions(foreignClient).connectTimeout(Duration.ofSeconds(5)).build())
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("TLS handshake failed")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredRedis.LOCK_PASSWORD));
    }

    @Test
    void aTlsUriNeverFallsBackToPlaintext() {
        String toThePlaintextPort = "rediss://" + SecuredRedis.LOCK_USER + ":" + SecuredRedis.LOCK_PASSWORD + "@"
                + redis.host() + ":" + redis.port();
        // the plaintext server reads the ClientHello as an unfinished inline command and never answers
        assertThatThrownBy(() -> RedisLockProvider.builder(toThePlaintextPort).sslOptions(SecuredRedis.sslOptions())
                .connectTimeout(Duration.ofSeconds(1)).build())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("a rediss:// URI to a port without TLS ends this way too")
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredRedis.LOCK_PASSWORD));
    }

    @Test
    void aPlaintextUriToTheTlsPortFails() {
        String plaintextToTheTlsPort = "redis://" + SecuredRedis.LOCK_USER + ":" + SecuredRedis.LOCK_PASSWORD + "@"
                + redis.host() + ":" + redis.tlsPort();
        assertThatThrownBy(() -> RedisLockProvider.builder(plaintextToTheTlsPort).connectTimeout(Duration.ofSeconds(2))
                .build())
                .isInstanceOf(LockUnavailableException.class)
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(SecuredRedis.LOCK_PASSWORD));
    }

    @Test
    void aWrongPasswordFailsWithoutNamingIt() {
        String wrong = "wrong-" + UUID.randomUUID();
        assertThatThrownBy(() -> RedisLockProvider.builder(SecuredRedis.uri(redis, SecuredRedis.LOCK_USER, wrong))
                .sslOptions(SecuredRedis.sslOptions()).connectTimeout(Duration.ofSeconds(5)).build())
                .isInstanceOf(LockUnavailableException.class)
                .satisfies(e -> assertThat(SecretScan.chainOf(e)).doesNotContain(wrong));
    }

    @Test
    void sslOptionsOnAClientTheCallerOwnsIsRefused() {
        RedisClient own = RedisClient.create();
        try {
            assertThatThrownBy(() -> RedisLockProvider.builder(own).sslOptions(SecuredRedis.sslOptions()).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ClientOptions");
        } finally {
            own.shutdown();
        }
    }

    @Test
    void theProviderNamesNoSecret() {
        try (RedisLockProvider provider = lockProvider()) {
            assertThat(provider.toString()).doesNotContain(SecuredRedis.LOCK_PASSWORD);
        }
    }

    private RedisLockProvider lockProvider() {
        return RedisLockProvider.builder(SecuredRedis.uri(redis, SecuredRedis.LOCK_USER, SecuredRedis.LOCK_PASSWORD))
                .sslOptions(SecuredRedis.sslOptions()).build();
    }

    private RedisClient client(String user, String password) {
        RedisClient client = RedisClient.create(SecuredRedis.uri(redis, user, password));
        client.setOptions(io.lettuce.core.ClientOptions.builder().sslOptions(SecuredRedis.sslOptions()).build());
        return client;
    }

    private static void assertRefused(Runnable command, String error) {
        assertThatThrownBy(command::run).isInstanceOf(RedisException.class).hasMessageContaining(error);
    }
}
