package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter's providers over TLS with authenticated accounts, configured the way a Boot
 * application already configures its Redis and its database: {@code spring.data.redis.*} with an
 * SSL bundle ({@code spring.ssl.bundle.pem.*}: the authority to trust and a client certificate),
 * and {@code spring.datasource.*} with {@code sslmode=verify-full}. The health indicator's details
 * and the log output name no password.
 */
class SecuredLockProvidersIT {

    private static final String PASSWORD = "boot-pw-" + UUID.randomUUID();
    private static final LeaseOptions OPTIONS = LeaseOptions.ofTtl(Duration.ofSeconds(10));

    private static TestCertificates certificates;
    private static RedisTestServer redis;
    private static PostgresTestServer postgres;

    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(() -> List.of(PASSWORD, new String(certificates.password())));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
                    FencingMetricsAutoConfiguration.class, FencingLockAutoConfiguration.class,
                    FencingFlywayAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
                    FencingHealthAutoConfiguration.class));

    @BeforeAll
    static void startServers() throws Exception {
        certificates = TestCertificates.create();
        redis = RedisTestServer.launchTls(certificates, "--user", "app", "on", ">" + PASSWORD, "~*", "&*", "+@all",
                "--user", "default", "on", "nopass", "~*", "&*", "+@all");
        postgres = PostgresTestServer.launchTls(certificates);
        try (Connection admin = postgres.connect(); Statement statement = admin.createStatement()) {
            statement.execute("CREATE ROLE app LOGIN PASSWORD '" + PASSWORD + "'");
            statement.execute("CREATE DATABASE app OWNER app");
        }
    }

    @AfterAll
    static void stopServers() {
        redis.stop();
        postgres.stop();
    }

    @Test
    void redisOverTlsWithBootsSslBundleAndAccount() {
        String[] pem = pemBundle();
        runner.withPropertyValues(pem).withPropertyValues("fencing.lock.type=redis",
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.tlsPort(),
                "spring.data.redis.username=app", "spring.data.redis.password=" + PASSWORD,
                "spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=fencing").run(context -> {
                    assertThat(context).hasNotFailed();
                    grants(context.getBean(RedisLockProvider.class));
                    String health = String.valueOf(context.getBean(FencingHealthIndicator.class).health());
                    assertThat(health).contains("UP").doesNotContain(PASSWORD);
                });
    }

    @Test
    void redisOverTlsRefusesAServerItsBundleDoesNotTrust() {
        TestCertificates stranger = TestCertificates.create();
        runner.withPropertyValues("spring.ssl.bundle.pem.fencing.truststore.certificate=file:"
                + stranger.caCertificate(), "fencing.lock.type=redis", "fencing.lock.redis.request-timeout=2s",
                "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.tlsPort(),
                "spring.data.redis.username=app", "spring.data.redis.password=" + PASSWORD,
                "spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=fencing").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(SecretScan.chainOf(context.getStartupFailure()))
                            .contains("TLS handshake failed, the server's certificate is not signed by an authority")
                            .doesNotContain(PASSWORD);
                });
    }

    @Test
    void postgresOverVerifyFullWithTheApplicationsDataSource() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, FlywayAutoConfiguration.class))
                .withPropertyValues("fencing.lock.type=postgres",
                        "spring.datasource.url=" + postgres.tlsJdbcUrl("app"), "spring.datasource.username=app",
                        "spring.datasource.password=" + PASSWORD).run(context -> {
                            assertThat(context).hasNotFailed();
                            grants(context.getBean(PostgresAdvisoryLockProvider.class));
                            String health = String.valueOf(context.getBean(FencingHealthIndicator.class).health());
                            assertThat(health).contains("UP").doesNotContain(PASSWORD);
                        });
    }

    @Test
    void etcdOverTlsWithAnSslBundleAndAnAccount() {
        EtcdTestServer etcd = EtcdTestServer.launchTls(certificates);
        try {
            etcd.enableAuth(PASSWORD, "app", PASSWORD, "fencing/");
            runner.withPropertyValues(pemBundle()).withPropertyValues("fencing.lock.type=etcd",
                    "fencing.lock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
                    "fencing.lock.etcd.username=app", "fencing.lock.etcd.password=" + PASSWORD,
                    "fencing.lock.etcd.ssl-bundle=fencing").run(context -> {
                        assertThat(context).hasNotFailed();
                        grants(context.getBean(EtcdLockProvider.class));
                    });
        } finally {
            etcd.stop();
        }
    }

    @Test
    void zooKeeperOverTlsWithClientConfigAndADigestAccount() {
        ZooKeeperTestServer zooKeeper = ZooKeeperTestServer.launchTls(certificates);
        String storePassword = new String(certificates.password());
        try {
            runner.withPropertyValues("fencing.lock.type=zookeeper",
                    "fencing.lock.zookeeper.connect-string=" + zooKeeper.secureConnectString(),
                    "fencing.lock.zookeeper.username=app", "fencing.lock.zookeeper.password=" + PASSWORD,
                    "fencing.lock.zookeeper.client-config.[zookeeper.client.secure]=true",
                    "fencing.lock.zookeeper.client-config.[zookeeper.clientCnxnSocket]="
                            + "org.apache.zookeeper.ClientCnxnSocketNetty",
                    "fencing.lock.zookeeper.client-config.[zookeeper.ssl.trustStore.location]="
                            + certificates.trustStore(),
                    "fencing.lock.zookeeper.client-config.[zookeeper.ssl.trustStore.password]=" + storePassword,
                    "fencing.lock.zookeeper.client-config.[zookeeper.ssl.keyStore.location]="
                            + certificates.clientKeyStore(),
                    "fencing.lock.zookeeper.client-config.[zookeeper.ssl.keyStore.password]=" + storePassword)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        grants(context.getBean(ZooKeeperLockProvider.class));
                        String health = String.valueOf(context.getBean(FencingHealthIndicator.class).health());
                        assertThat(health).doesNotContain(PASSWORD).doesNotContain(storePassword);
                    });
        } finally {
            zooKeeper.stop();
        }
    }

    private static String[] pemBundle() {
        return new String[] {
            "spring.ssl.bundle.pem.fencing.truststore.certificate=file:" + certificates.caCertificate(),
            "spring.ssl.bundle.pem.fencing.keystore.certificate=file:" + certificates.clientCertificate(),
            "spring.ssl.bundle.pem.fencing.keystore.private-key=file:" + certificates.clientKey()
        };
    }

    private static void grants(LockProvider provider) {
        String resource = "secured-" + UUID.randomUUID();
        try (Lease lease = provider.acquire(resource, OPTIONS)) {
            assertThat(lease.token().value()).isPositive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
