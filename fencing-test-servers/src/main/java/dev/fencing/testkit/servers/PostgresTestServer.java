package dev.fencing.testkit.servers;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server for tests: zonky's embedded PostgreSQL (17, run as a child process of
 * this JVM, with {@code fsync=off} — fast, not durable against an OS crash, but durable across
 * the server restarts tests inject), or an external server given by a JDBC URL.
 */
public final class PostgresTestServer implements SqlTestServer {

    private final String jdbcUrl;
    private final @Nullable Path dataDirectory;
    private final int port;
    private final Map<String, String> settings;
    private @Nullable EmbeddedPostgres embedded;
    private @Nullable Path tlsRootCertificate;

    private PostgresTestServer(String jdbcUrl, @Nullable Path dataDirectory, int port,
            @Nullable EmbeddedPostgres embedded, Map<String, String> settings) {
        this.jdbcUrl = jdbcUrl;
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.embedded = embedded;
        this.settings = Map.copyOf(settings);
    }

    /** Starts an embedded server on a free port with a fresh data directory. */
    public static PostgresTestServer launch() {
        return launch(Map.of());
    }

    /**
     * As {@link #launch()}, with extra server settings (for example {@code fsync=on} and
     * {@code synchronous_commit=on} for durable commits; the embedded default turns both off).
     */
    public static PostgresTestServer launch(Map<String, String> settings) {
        try {
            Path data = Files.createTempDirectory("fencing-pg-");
            Files.delete(data); // initdb wants to create it
            EmbeddedPostgres.Builder builder = builder(data, 0);
            settings.forEach(builder::setServerConfig);
            EmbeddedPostgres embedded = builder.start();
            int port = embedded.getPort();
            String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
            PostgresTestServer server = new PostgresTestServer(url, data, port, embedded, settings);
            Runtime.getRuntime().addShutdownHook(new Thread(server::stopAndDelete, "fencing-testkit-stop-postgres"));
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL; set FENCING_PG_URL to use another server", e);
        }
    }

    /**
     * Starts an embedded server that serves TLS with the server certificate of
     * {@code certificates} and refuses every role but {@code postgres} without it: roles other than
     * {@code postgres} log in over TLS with a SCRAM password only ({@code hostssl … scram-sha-256};
     * no {@code hostnossl} line, so a plaintext login of theirs is refused by the server). The
     * testkit's own connections ({@link #jdbcUrl()}, {@link #freshDatabase()}) stay {@code postgres}
     * on loopback. Give the clients under test {@link #tlsJdbcUrl(String)} and a role of their own.
     */
    public static PostgresTestServer launchTls(TestCertificates certificates) {
        PostgresTestServer server = launch(Map.of("ssl", "on",
                "ssl_cert_file", certificates.serverCertificate().toString(),
                "ssl_key_file", certificates.serverKey().toString(),
                "ssl_ca_file", certificates.caCertificate().toString(),
                "password_encryption", "scram-sha-256"));
        server.tlsRootCertificate = certificates.caCertificate();
        Path data = java.util.Objects.requireNonNull(server.dataDirectory, "launched servers have data");
        try {
            Files.writeString(data.resolve("pg_hba.conf"), String.join("\n",
                    "local all all trust",
                    "host all postgres 127.0.0.1/32 trust",
                    "host all postgres ::1/128 trust",
                    "hostssl all all 127.0.0.1/32 scram-sha-256",
                    "hostssl all all ::1/128 scram-sha-256", ""));
            try (Connection connection = server.connect(); var statement = connection.createStatement()) {
                statement.execute("SELECT pg_reload_conf()");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write pg_hba.conf in " + data, e);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reload the configuration of " + server.describe(), e);
        }
        return server;
    }

    /**
     * A JDBC URL of {@code database} on a server started with {@link #launchTls}, with
     * {@code sslmode=verify-full} against the test authority and no credentials.
     *
     * @throws IllegalStateException if the server serves no TLS
     */
    public String tlsJdbcUrl(String database) {
        Path root = tlsRootCertificate;
        if (root == null) {
            throw new IllegalStateException(describe() + " serves no TLS: start it with PostgresTestServer.launchTls");
        }
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?sslmode=verify-full&sslrootcert=" + root;
    }

    /** An external server at {@code jdbcUrl} (credentials as URL parameters). */
    public static PostgresTestServer external(String jdbcUrl) {
        return new PostgresTestServer(jdbcUrl, null, -1, null, Map.of());
    }

    private static EmbeddedPostgres.Builder builder(Path data, int port) {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false)
                .setPGStartupWait(Duration.ofSeconds(30))
                .setServerConfig("max_connections", "200")
                // tests provoke errors on purpose (duplicate keys, missing tables): keep them out of the build log
                .setServerConfig("log_min_messages", "fatal")
                .setServerConfig("log_min_error_statement", "panic");
        return port > 0 ? builder.setPort(port) : builder;
    }

    /** The port of an embedded server ({@code -1} for an external one). */
    public int port() {
        return port;
    }

    /** The JDBC URL, credentials included. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public String vendor() {
        return "postgresql";
    }

    /** A new unpooled data source. */
    @Override
    public DataSource dataSource() {
        return dataSource(jdbcUrl);
    }

    @Override
    public DataSource freshDatabase() {
        String name = "fencing_" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection connection = connect(); var statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + " on " + describe(), e);
        }
        java.util.regex.Matcher url = java.util.regex.Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(.*)").matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalStateException("cannot find the database name in " + describe());
        }
        return dataSource(url.group(1) + name + url.group(3));
    }

    private static DataSource dataSource(String url) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        return dataSource;
    }

    /** A new connection. */
    public Connection connect() throws SQLException {
        return dataSource().getConnection();
    }

    @Override
    public String describe() {
        return "PostgreSQL at " + jdbcUrl.replaceAll("password=[^&]*", "password=***");
    }

    @Override
    public boolean isManaged() {
        return dataDirectory != null;
    }

    @Override
    public synchronized void stop() {
        requireManaged("stop");
        if (embedded != null) {
            try {
                embedded.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot stop " + describe(), e);
            }
            embedded = null;
        }
    }

    /**
     * Kills the postmaster (SIGKILL, read from {@code postmaster.pid}); its backends exit when
     * they notice. A later {@link #start()} runs crash recovery on the same data.
     */
    @Override
    public synchronized void kill() {
        Path data = requireManaged("kill");
        if (embedded == null) {
            return;
        }
        try {
            long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
            ProcessHandle.of(pid).ifPresent(postmaster -> {
                postmaster.destroyForcibly();
                postmaster.onExit().join();
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the postmaster pid of " + describe(), e);
        }
        try {
            embedded.close(); // pg_ctl stop finds no server; only frees zonky's bookkeeping
        } catch (IOException | RuntimeException e) {
            // expected: the server is already gone
        }
        embedded = null;
    }

    @Override
    public synchronized void start() {
        Path data = requireManaged("start");
        if (embedded == null) {
            try {
                EmbeddedPostgres.Builder builder = builder(data, port);
                settings.forEach(builder::setServerConfig);
                embedded = builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot restart " + describe(), e);
            }
        }
    }

    /** Stops and starts the server on the same port and data: every connection is dropped, no data is lost. */
    public void restart() {
        stop();
        start();
    }

    private synchronized void stopAndDelete() {
        try {
            stop();
        } catch (RuntimeException e) {
            // best effort at exit
        }
        try (var files = Files.walk(dataDirectory)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // best effort at exit
        }
    }

    /** The data directory of this managed server; for an external one, {@code fault} is refused. */
    private Path requireManaged(String fault) {
        Path data = dataDirectory;
        if (data == null) { // not isManaged()
            throw ManagedOnly.refuse(this, fault);
        }
        return data;
    }

    @Override
    public String toString() {
        return describe();
    }
}
