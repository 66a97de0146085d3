package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.AzuriteTestServer;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import dev.fencing.testkit.servers.TlsTerminatingProxy;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CLI against servers that take only TLS and an account: {@code --tls-ca}, {@code --tls-cert}
 * and {@code --tls-key} reach Redis (lock and store, with a client certificate) and PostgreSQL
 * ({@code sslmode=verify-full}, the authority from {@code --tls-ca}); the zombie is refused as on
 * the plaintext servers, and nothing the CLI prints names the password.
 */
class CliTlsIT {

    private static final String PASSWORD = "cli-pw-" + UUID.randomUUID();

    private static TestCertificates certificates;
    private static RedisTestServer redis;
    private static PostgresTestServer postgres;

    @BeforeAll
    static void startServers() throws Exception {
        certificates = TestCertificates.create();
        redis = RedisTestServer.launchTls(certificates, "--tls-auth-clients", "yes", "--user", "app", "on",
                ">" + PASSWORD, "~*", "&*", "+@all");
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
    void theDemoRunsOnRedisOverTlsWithAClientCertificate() {
        String uri = "rediss://app:" + PASSWORD + "@127.0.0.1:" + redis.tlsPort();
        CliRun run = CliRun.of("demo", "--lock", "redis", "--store", "redis", "--ttl", "300ms", "--redis-uri", uri,
                "--tls-ca", certificates.caCertificate().toString(),
                "--tls-cert", certificates.clientCertificate().toString(),
                "--tls-key", certificates.clientKey().toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("REFUSED: Stale fencing token").contains("final: balance 150");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }

    @Test
    void withoutTheClientCertificateTheServerRefusesTheConnection() {
        String uri = "rediss://app:" + PASSWORD + "@127.0.0.1:" + redis.tlsPort();
        CliRun run = CliRun.of("demo", "--lock", "redis", "--store", "redis", "--ttl", "300ms", "--redis-uri", uri,
                "--tls-ca", certificates.caCertificate().toString());
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(run.err()).contains("Redis for the lock at rediss://").contains("TLS handshake failed");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }

    @Test
    void theDemoRunsOnPostgresOverVerifyFull() {
        String url = "jdbc:postgresql://127.0.0.1:" + postgres.port() + "/app?user=app&password=" + PASSWORD
                + "&sslmode=verify-full";
        CliRun run = CliRun.of("demo", "--lock", "postgres", "--store", "jdbc", "--ttl", "300ms", "--pg-url", url,
                "--tls-ca", certificates.caCertificate().toString());
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("REFUSED: Stale fencing token").contains("final: balance 150");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }

    @Test
    void aStrangersAuthorityFailsThePostgresConnectionNamingTls() {
        TestCertificates stranger = TestCertificates.create();
        String url = "jdbc:postgresql://127.0.0.1:" + postgres.port() + "/app?user=app&password=" + PASSWORD
                + "&sslmode=verify-full";
        CliRun run = CliRun.of("demo", "--lock", "postgres", "--store", "jdbc", "--pg-url", url,
                "--tls-ca", stranger.caCertificate().toString());
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
        assertThat(run.err()).contains("the TLS handshake failed (is the server's certificate signed by the authority"
                + " of --tls-ca").contains("Path does not chain with any of the trust anchors");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }

    @Test
    void theDemoRunsOnDynamoDbBehindHttpsWithAClientCertificate() {
        DynamoDbTestServer dynalite = DynamoDbTestServer.launch();
        int port = Integer.parseInt(dynalite.endpoint().substring(dynalite.endpoint().lastIndexOf(':') + 1));
        try (TlsTerminatingProxy https = TlsTerminatingProxy.requiringClientCertificates(certificates, "127.0.0.1",
                port)) {
            CliRun run = CliRun.of("demo", "--lock", "dynamodb", "--store", "dynamodb", "--ttl", "300ms",
                    "--dynamodb-endpoint", https.httpsEndpoint(), "--tls-ca", certificates.caCertificate().toString(),
                    "--tls-cert", certificates.clientCertificate().toString(),
                    "--tls-key", certificates.clientKey().toString());
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.out()).contains("REFUSED: Stale fencing token").contains("final: balance 150");
            CliRun untrusted = CliRun.of("demo", "--lock", "dynamodb", "--store", "dynamodb", "--dynamodb-endpoint",
                    https.httpsEndpoint());
            assertThat(untrusted.exitCode()).as(untrusted.toString()).isEqualTo(ExitCode.UNREACHABLE);
            assertThat(untrusted.err()).contains("the TLS handshake failed");
        } finally {
            dynalite.stop();
        }
    }

    @Test
    void theDemoRunsOnAzureBlobBehindHttps() {
        AzuriteTestServer azurite = AzuriteTestServer.launch();
        java.net.URI plain = java.net.URI.create(azurite.endpoint());
        try (TlsTerminatingProxy https = TlsTerminatingProxy.start(certificates, "127.0.0.1", plain.getPort())) {
            String endpoint = https.httpsEndpoint() + plain.getPath();
            CliRun run = CliRun.of("demo", "--lock", "redis", "--store", "azure-blob", "--ttl", "300ms",
                    "--azure-blob-endpoint", endpoint, "--tls-ca", certificates.caCertificate().toString());
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.out()).contains("REFUSED: Stale fencing token").contains("final: balance 150");
        } finally {
            azurite.stop();
        }
    }

    /** The gcs store on the storage-testbench behind an {@code https://} front, trusting it through {@code --tls-ca}. */
    @Test
    void theDemoRunsOnGcsBehindHttps() {
        java.net.URI plain = java.net.URI.create(SharedServers.gcsEndpoint());
        try (TlsTerminatingProxy https = TlsTerminatingProxy.start(certificates, "127.0.0.1", plain.getPort())) {
            CliRun run = CliRun.of("demo", "--lock", "redis", "--store", "gcs", "--ttl", "300ms", "--timeout", "30s",
                    "--gcs-endpoint", https.httpsEndpoint(), "--tls-ca", certificates.caCertificate().toString());
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.out()).contains("REFUSED: Stale fencing token").contains("final: balance 150");
            CliRun untrusted = CliRun.of("inspect", "--store", "gcs", "--resource", "r", "--timeout", "10s",
                    "--gcs-endpoint", https.httpsEndpoint());
            assertThat(untrusted.exitCode()).as(untrusted.toString()).isEqualTo(ExitCode.UNREACHABLE);
        }
    }

    /**
     * etcd over TLS with client certificates and RBAC on: the lock's account from
     * {@code --etcd-user} and {@code FENCING_ETCD_PASSWORD} (a child JVM, for the environment).
     */
    @Test
    void theDemoRunsOnEtcdOverTlsWithAnAccount() throws Exception {
        EtcdTestServer etcd = EtcdTestServer.launchTls(certificates);
        try {
            etcd.enableAuth(PASSWORD, "app", PASSWORD, "fencing/");
            // a child JVM's first TLS handshake on a busy machine: the timeout is generous, not the point here
            ProcessBuilder child = childJvm("demo", "--lock", "etcd", "--store", "redis", "--ttl", "300ms",
                    "--timeout", "30s", "--etcd-endpoints", String.join(",", etcd.endpoints()), "--etcd-user", "app",
                    "--tls-ca", certificates.caCertificate().toString(),
                    "--tls-cert", certificates.clientCertificate().toString(),
                    "--tls-key", certificates.clientKey().toString());
            child.environment().put("FENCING_ETCD_PASSWORD", PASSWORD);
            Process process = child.start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
            assertThat(process.exitValue()).as(out).isZero();
            assertThat(out).contains("REFUSED: Stale fencing token").contains("final: balance 150")
                    .doesNotContain(PASSWORD);
        } finally {
            etcd.stop();
        }
    }

    @Test
    void theDemoRunsOnZooKeepersSecurePort() {
        ZooKeeperTestServer zooKeeper = ZooKeeperTestServer.launchTls(certificates);
        try {
            CliRun run = CliRun.of("demo", "--lock", "zookeeper", "--store", "redis", "--ttl", "300ms",
                    "--zookeeper-connect", zooKeeper.secureConnectString(), "--zookeeper-tls",
                    "--tls-ca", certificates.caCertificate().toString(),
                    "--tls-cert", certificates.clientCertificate().toString(),
                    "--tls-key", certificates.clientKey().toString());
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.out()).contains("REFUSED: Stale fencing token").contains("final: balance 150");
        } finally {
            zooKeeper.stop();
        }
    }

    @Test
    void anAccountWithoutItsPasswordInTheEnvironmentIsBadUsage() {
        CliRun run = CliRun.of("demo", "--lock", "zookeeper", "--zookeeper-connect", "127.0.0.1:1",
                "--zookeeper-user", "app");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--zookeeper-user app needs its password in the environment variable"
                + " FENCING_ZOOKEEPER_PASSWORD");
    }

    private static ProcessBuilder childJvm(String... args) {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                FencingCli.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true);
    }

    @Test
    void aCertificateWithoutItsKeyIsBadUsage() {
        CliRun run = CliRun.of("demo", "--tls-cert", certificates.clientCertificate().toString());
        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--tls-cert and --tls-key go together");
    }

    @Test
    void anUnreadableAuthorityIsBadUsageNamingTheFile() {
        CliRun run = CliRun.of("demo", "--tls-ca", "/no/such/ca.pem");
        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("--tls-ca /no/such/ca.pem is not a readable PEM certificate");
    }

    @Test
    void anEncryptedOrForeignKeyFormatIsBadUsage() {
        CliRun run = CliRun.of("demo", "--tls-cert", certificates.clientCertificate().toString(), "--tls-key",
                certificates.clientCertificate().toString());
        assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE);
        assertThat(run.err()).contains("must be an unencrypted PKCS#8 PEM key");
    }
}
