package dev.fencing.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.TestCertificates;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One PostgreSQL per test JVM set up as docs/security.md says: TLS only for every role but the
 * administrator, a migration role that owns the toolkit's tables, a lock role with only the token
 * counter, a store role with only the store's and the fence's tables. The grants here are the
 * guide's; a test that needs one more fails until the guide says so too.
 */
final class SecuredPostgres {

    static final String DATABASE = "fencing_tls";
    static final String MIGRATOR = "fencing_migrator";
    static final String LOCKS = "fencing_locks";
    static final String STORE = "fencing_store_writer";
    static final String MIGRATOR_PASSWORD = "migrator-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
    static final String LOCKS_PASSWORD = "locks-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
    static final String STORE_PASSWORD = "store-pw-" + Long.toHexString(Double.doubleToLongBits(Math.random()));

    /** What an administrator runs once, before the first migration (docs/security.md). */
    static final List<String> SETUP = List.of(
            "CREATE ROLE " + MIGRATOR + " LOGIN PASSWORD '" + MIGRATOR_PASSWORD + "'",
            "CREATE ROLE " + LOCKS + " LOGIN PASSWORD '" + LOCKS_PASSWORD + "'",
            "CREATE ROLE " + STORE + " LOGIN PASSWORD '" + STORE_PASSWORD + "'",
            "GRANT CREATE, USAGE ON SCHEMA public TO " + MIGRATOR);

    /** What the migration role grants after the migration (docs/security.md). */
    static final List<String> GRANTS = List.of(
            "GRANT SELECT, INSERT, UPDATE ON fencing_token_counter TO " + LOCKS,
            "GRANT SELECT, INSERT, UPDATE ON fencing_store, fencing_fence TO " + STORE);

    private static TestCertificates certificates;
    private static PostgresTestServer server;
    private static final java.util.Map<String, HikariDataSource> POOLS = new java.util.HashMap<>();

    private SecuredPostgres() {}

    /** Every secret the secured tests use: the accounts' passwords and the key stores' passphrase. */
    static List<String> secrets() {
        return List.of(MIGRATOR_PASSWORD, LOCKS_PASSWORD, STORE_PASSWORD, new String(certificates().password()));
    }

    static synchronized TestCertificates certificates() {
        if (certificates == null) {
            certificates = TestCertificates.create();
        }
        return certificates;
    }

    /** The shared server with the database, roles, tables and grants ready. */
    static synchronized PostgresTestServer server() {
        if (server == null) {
            server = launch();
        }
        return server;
    }

    /** A new server of its own, set up like the shared one. */
    static PostgresTestServer launch() {
        {
            PostgresTestServer launched = PostgresTestServer.launchTls(certificates());
            try (Connection admin = launched.connect(); Statement statement = admin.createStatement()) {
                statement.execute("CREATE DATABASE " + DATABASE);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create " + DATABASE, e);
            }
            run(adminOf(launched), SETUP);
            DataSource migrator = as(launched, MIGRATOR, MIGRATOR_PASSWORD);
            FencingMigrations.migrate(migrator);
            run(migrator, GRANTS);
            return launched;
        }
    }

    /**
     * A pool of {@code user}'s connections to the shared database, as an application has (a TLS
     * handshake and a SCRAM exchange per connection are slow); one per user per JVM, never closed.
     */
    static synchronized HikariDataSource pool(String user, String password) {
        return POOLS.computeIfAbsent(user, name -> {
            HikariConfig config = new HikariConfig();
            config.setDataSource(as(user, password));
            config.setMaximumPoolSize(40);
            config.setPoolName("tls-" + user);
            return new HikariDataSource(config);
        });
    }

    /** The shared database as {@code user} over TLS ({@code sslmode=verify-full}). */
    static PGSimpleDataSource as(String user, String password) {
        return as(server(), user, password);
    }

    static PGSimpleDataSource as(PostgresTestServer on, String user, String password) {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(on.tlsJdbcUrl(DATABASE));
        source.setUser(user);
        source.setPassword(password);
        return source;
    }

    private static DataSource adminOf(PostgresTestServer on) {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL("jdbc:postgresql://127.0.0.1:" + on.port() + "/" + DATABASE + "?user=postgres");
        return source;
    }

    private static void run(DataSource database, List<String> statements) {
        try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot set up the secured database: " + e.getMessage(), e);
        }
    }
}
