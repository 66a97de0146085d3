package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adversarial checks of the CLI's TLS and secret handling against real servers: a user who asks for
 * TLS (with {@code --tls-ca}) must never get an unverified or plaintext connection without being
 * told, and no part of a password may be printed, whatever characters it holds.
 */
class CliSecurityAttackIT {

    private static final String PASSWORD = "attack-pw-" + UUID.randomUUID();

    private static TestCertificates certificates;
    private static TestCertificates stranger;
    private static PostgresTestServer tlsPostgres;
    private static PostgresTestServer plainPostgres;

    @BeforeAll
    static void startServers() throws Exception {
        certificates = TestCertificates.create();
        stranger = TestCertificates.create();
        tlsPostgres = PostgresTestServer.launchTls(certificates);
        try (Connection admin = tlsPostgres.connect(); Statement statement = admin.createStatement()) {
            statement.execute("CREATE ROLE app LOGIN PASSWORD '" + PASSWORD + "'");
            statement.execute("CREATE DATABASE app OWNER app");
        }
        plainPostgres = PostgresTestServer.launch();
        try (Connection admin = plainPostgres.connect(); Statement statement = admin.createStatement()) {
            statement.execute("CREATE ROLE app LOGIN PASSWORD '" + PASSWORD + "'");
            statement.execute("CREATE DATABASE app OWNER app");
        }
    }

    @AfterAll
    static void stopServers() {
        tlsPostgres.stop();
        plainPostgres.stop();
    }

    /**
     * {@code sslmode=require} encrypts but pgjdbc checks no certificate, so the {@code sslrootcert}
     * the CLI adds from {@code --tls-ca} is ignored: a server whose certificate another authority
     * signed (a man in the middle) is accepted. The user gave an authority and believes it is checked.
     */
    @Test
    void sslmodeRequireWithTlsCaMustNotAcceptAServerOfAnotherAuthority() {
        String url = "jdbc:postgresql://127.0.0.1:" + tlsPostgres.port() + "/app?user=app&password=" + PASSWORD
                + "&sslmode=require";
        CliRun run = CliRun.of("demo", "--lock", "postgres", "--store", "jdbc", "--ttl", "300ms", "--pg-url", url,
                "--tls-ca", stranger.caCertificate().toString());
        assertThat(run.exitCode()).as("a certificate --tls-ca does not trust was accepted:\n" + run)
                .isNotZero();
        assertThat(run.err()).contains("sslmode=require");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }

    /**
     * {@code sslmode=prefer} with {@code --tls-ca}: a server that offers no TLS is used in plaintext,
     * password and data in clear, without a word.
     */
    @Test
    void sslmodePreferWithTlsCaMustNotFallBackToPlaintext() {
        String url = "jdbc:postgresql://127.0.0.1:" + plainPostgres.port() + "/app?user=app&password=" + PASSWORD
                + "&sslmode=prefer";
        CliRun run = CliRun.of("demo", "--lock", "postgres", "--store", "jdbc", "--ttl", "300ms", "--pg-url", url,
                "--tls-ca", certificates.caCertificate().toString());
        assertThat(run.exitCode()).as("a plaintext server was used although --tls-ca was given:\n" + run)
                .isNotZero();
        assertThat(run.err()).contains("sslmode=prefer");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }

    /**
     * {@code --tls-ca} given, but the Redis URI is {@code redis://}: the CLI connects in plaintext
     * and says nothing, though the user asked for an authority to be checked.
     */
    @Test
    void tlsCaWithAPlaintextRedisUriIsNotSilent() {
        RedisTestServer redis = RedisTestServer.launch("--user", "app", "on", ">" + PASSWORD, "~*", "&*", "+@all");
        try {
            String uri = "redis://app:" + PASSWORD + "@127.0.0.1:" + redis.port();
            CliRun run = CliRun.of("demo", "--lock", "redis", "--store", "redis", "--ttl", "300ms", "--redis-uri", uri,
                    "--tls-ca", certificates.caCertificate().toString());
            assertThat(run.exitCode() != 0 || (run.out() + run.err()).contains("plaintext"))
                    .as("--tls-ca was given, the connection went in plaintext without a word:\n" + run).isTrue();
            assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
        } finally {
            redis.stop();
        }
    }

    /**
     * {@code --tls-ca} given, but the etcd endpoint is {@code http://} or ZooKeeper is reached
     * without {@code --zookeeper-tls}: the CLI connects in plaintext and says nothing.
     */
    @Test
    void tlsCaWithPlaintextEtcdOrZooKeeperIsNotSilent() {
        EtcdTestServer etcd = EtcdTestServer.launch();
        try {
            CliRun run = CliRun.of("demo", "--lock", "etcd", "--store", "jdbc", "--ttl", "300ms", "--etcd-endpoints",
                    etcd.endpoint(), "--tls-ca", certificates.caCertificate().toString());
            assertThat(run.exitCode() != 0 || (run.out() + run.err()).contains("plaintext"))
                    .as("--tls-ca was given, etcd went in plaintext without a word:\n" + run).isTrue();
        } finally {
            etcd.stop();
        }
        ZooKeeperTestServer zooKeeper = ZooKeeperTestServer.launch();
        try {
            CliRun run = CliRun.of("demo", "--lock", "zookeeper", "--store", "jdbc", "--ttl", "300ms",
                    "--zookeeper-connect", zooKeeper.connectString(), "--tls-ca", certificates.caCertificate().toString());
            assertThat(run.exitCode() != 0 || (run.out() + run.err()).contains("plaintext"))
                    .as("--tls-ca was given, ZooKeeper went in plaintext without a word:\n" + run).isTrue();
        } finally {
            zooKeeper.stop();
        }
    }

    /** A name the server's certificate does not carry (it names localhost and 127.0.0.1) is refused. */
    @Test
    void aRedisHostNameTheCertificateDoesNotNameIsRefused() {
        RedisTestServer redis = RedisTestServer.launchTls(certificates, "--bind", "127.0.0.1", "127.0.0.2");
        try {
            String uri = "rediss://127.0.0.2:" + redis.tlsPort();
            CliRun run = CliRun.of("demo", "--lock", "redis", "--store", "redis", "--ttl", "300ms", "--redis-uri", uri,
                    "--tls-ca", certificates.caCertificate().toString());
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCode.UNREACHABLE);
            assertThat(run.err()).contains("TLS handshake failed");
        } finally {
            redis.stop();
        }
    }

    /**
     * ZooKeeper's secure port and etcd's TLS endpoint reached by a name their certificate does not
     * carry (127.0.0.2, relayed byte for byte to the servers on 127.0.0.1): the connection must be
     * refused, as it is for Redis, with docs/security.md's message ("the TLS handshake failed ... or
     * does not name the host connected to").
     */
    @Test
    void zooKeeperByANameTheCertificateDoesNotNameIsRefusedSayingSo() throws Exception {
        ZooKeeperTestServer zooKeeper = ZooKeeperTestServer.launchTls(certificates);
        String secure = zooKeeper.secureConnectString();
        int securePort = Integer.parseInt(secure.substring(secure.lastIndexOf(':') + 1));
        try (Relay control = Relay.on("127.0.0.1", securePort)) { // the relay itself passes ZooKeeper's TLS
            CliRun run = CliRun.of("demo", "--lock", "zookeeper", "--store", "redis", "--ttl", "300ms",
                    "--zookeeper-connect", "127.0.0.1:" + control.port(), "--zookeeper-tls",
                    "--tls-ca", certificates.caCertificate().toString(),
                    "--tls-cert", certificates.clientCertificate().toString(),
                    "--tls-key", certificates.clientKey().toString());
            assertThat(run.exitCode()).as("through a relay on 127.0.0.1:\n" + run).isZero();
        }
        try (Relay relay = Relay.to(securePort)) {
            CliRun run = CliRun.of("demo", "--lock", "zookeeper", "--store", "redis", "--ttl", "300ms",
                    "--zookeeper-connect", "127.0.0.2:" + relay.port(), "--zookeeper-tls",
                    "--tls-ca", certificates.caCertificate().toString(),
                    "--tls-cert", certificates.clientCertificate().toString(),
                    "--tls-key", certificates.clientKey().toString());
            assertThat(run.exitCode()).as("ZooKeeper by a name its certificate lacks:\n" + run)
                    .isEqualTo(ExitCode.UNREACHABLE);
            assertThat(run.err()).contains("TLS handshake failed");
        } finally {
            zooKeeper.stop();
        }
    }

    /** As {@link #zooKeeperByANameTheCertificateDoesNotNameIsRefusedSayingSo}, for etcd. */
    @Test
    void etcdByANameTheCertificateDoesNotNameIsRefusedSayingSo() throws Exception {
        EtcdTestServer etcd = EtcdTestServer.launchTls(certificates);
        try (Relay relay = Relay.to(etcd.port())) {
            CliRun run = CliRun.of("demo", "--lock", "etcd", "--store", "redis", "--ttl", "300ms",
                    "--etcd-endpoints", "https://127.0.0.2:" + relay.port(),
                    "--tls-ca", certificates.caCertificate().toString(),
                    "--tls-cert", certificates.clientCertificate().toString(),
                    "--tls-key", certificates.clientKey().toString());
            assertThat(run.exitCode()).as("etcd by a name its certificate lacks:\n" + run)
                    .isEqualTo(ExitCode.UNREACHABLE);
            assertThat(run.err()).contains("TLS handshake failed");
        } finally {
            etcd.stop();
        }
    }

    /** Relays TCP from 127.0.0.2 (a loopback address no test certificate names) to 127.0.0.1:port. */
    private record Relay(java.net.ServerSocket listener) implements AutoCloseable {

        static Relay to(int port) throws java.io.IOException {
            return on("127.0.0.2", port);
        }

        static Relay on(String address, int port) throws java.io.IOException {
            java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName(address));
            Thread acceptor = new Thread(() -> {
                while (!listener.isClosed()) {
                    try {
                        java.net.Socket in = listener.accept();
                        java.net.Socket out = new java.net.Socket("127.0.0.1", port);
                        pump(in, out);
                        pump(out, in);
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "relay-" + port);
            acceptor.setDaemon(true);
            acceptor.start();
            return new Relay(listener);
        }

        private static void pump(java.net.Socket from, java.net.Socket to) {
            Thread thread = new Thread(() -> {
                try {
                    from.getInputStream().transferTo(to.getOutputStream());
                } catch (java.io.IOException e) {
                    // the other side closed
                } finally {
                    try {
                        from.close();
                        to.close();
                    } catch (java.io.IOException e) {
                        // closing
                    }
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        @Override
        public void close() throws java.io.IOException {
            listener.close();
        }
    }

    /**
     * Passwords are printed as {@code ***}, also when they hold {@code @}, {@code /} or characters a
     * URI may not hold ({@code ^ { | %zz} and space) unencoded (a mistake users make with generated
     * passwords): no part of the password may be printed, on the bad-usage path (whose message quoted
     * {@code java.net.URI}'s, which repeats the whole URI) or the unreachable one.
     */
    @Test
    void noPartOfAPasswordWithAnAtSignOrASlashIsPrinted() {
        String tail = "tail-" + UUID.randomUUID();
        for (String password : new String[] {"p@" + tail, "p/" + tail, "p@x/" + tail, "p:" + tail + "@x",
            "p^" + tail, "p{" + tail, "p%zz" + tail, "p " + tail, "p|" + tail}) {
            for (String uri : new String[] {"redis://app:" + password + "@127.0.0.1:1",
                    "redis://:" + password + "@127.0.0.1:1", "rediss://app:" + password + "@127.0.0.1:1/0"}) {
                CliRun run = CliRun.of("demo", "--lock", "redis", "--store", "redis", "--redis-uri", uri);
                assertThat(run.exitCode()).as(run.toString()).isNotZero();
                assertThat(run.out() + run.err()).as(uri + " printed part of its password:\n" + run)
                        .doesNotContain(tail);
                CliRun json = CliRun.of("demo", "--json", "--lock", "redis", "--store", "redis", "--redis-uri", uri);
                assertThat(json.out() + json.err()).as(uri + " printed part of its password:\n" + json)
                        .doesNotContain(tail);
            }
        }
    }
}
