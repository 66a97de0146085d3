package dev.fencing.jdbc;

import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.SqlTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * One fresh database per server per test JVM, with the toolkit's migrations applied and the
 * tables the tests write: {@code accounts} (id, balance, fencing_token), {@code guarded_kv}
 * (a key-value table with a token column) and {@code plain_kv} (the same without one).
 */
final class Databases {

    private static final Map<String, DataSource> MIGRATED = new HashMap<>();

    private Databases() {}

    static SqlTestServer postgres() {
        return TestServers.postgres();
    }

    static SqlTestServer mariaDb() {
        return TestServers.mariaDb();
    }

    static synchronized DataSource migrated(SqlTestServer server) {
        return MIGRATED.computeIfAbsent(server.vendor(), vendor -> {
            DataSource db = server.freshDatabase();
            FencingMigrations.migrate(db);
            try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL,"
                        + " fencing_token BIGINT NOT NULL DEFAULT 0)");
                statement.execute("CREATE TABLE guarded_kv (k VARCHAR(256) PRIMARY KEY, v TEXT, version BIGINT NOT NULL,"
                        + " fencing_token BIGINT NOT NULL DEFAULT 0)");
                statement.execute("CREATE TABLE plain_kv (k VARCHAR(256) PRIMARY KEY, v TEXT, version BIGINT NOT NULL)");
                statement.execute("CREATE TABLE unfenced (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create the test tables on " + server, e);
            }
            return db;
        });
    }
}
