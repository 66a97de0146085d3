package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Guarantee 9 through the table (found by the adversarial review): {@link JdbcFencedStore.Builder#table}
 * takes a table "with the columns of fencing_store" and checks on first use that
 * its {@code item_key} compares byte for byte — but never checks {@code fence_resource}. A table
 * whose {@code fence_resource} has the server's default collation (MariaDB: case-insensitive, PAD
 * SPACE; PostgreSQL: a nondeterministic ICU collation) lets a token of lock {@code orders} through
 * the SQL condition on a key bound to {@code Orders}, and the write re-binds the key.
 */
class ResourceColumnCollationIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    private static String createTable(SqlTestServer server, DataSource db) throws SQLException {
        boolean postgres = server.vendor().equals("postgresql");
        String table = "own_store_" + UUID.randomUUID().toString().substring(0, 8).replace('-', '_');
        String key = postgres ? "VARCHAR(256) COLLATE \"C\"" : "VARBINARY(1024)";
        // the lock-name column as a user adds it to a table of their own: the natural VARCHAR
        String resource = postgres ? "VARCHAR(256) COLLATE ignore_case" : "VARCHAR(256)";
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (item_key " + key + " NOT NULL PRIMARY KEY,"
                    + " item_value TEXT NULL, token BIGINT NOT NULL, version BIGINT NOT NULL,"
                    + " fence_resource " + resource + " NULL,"
                    + " updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))");
        }
        return table;
    }

    private static String boundResource(DataSource db, String table, String key) throws SQLException {
        try (Connection connection = db.getConnection(); PreparedStatement select = connection.prepareStatement(
                "SELECT fence_resource FROM " + table + " WHERE item_key = ?")) {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    /**
     * Found by the adversarial review: such a table let lock {@code orders} write and re-bind a key
     * of lock {@code Orders}. The store now refuses the table on first use, naming the column, and
     * writes nothing.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aLockNameColumnThatIgnoresCaseIsRefusedBeforeAnyWrite(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        String table = createTable(server, db);
        FencedStore ordersHolder = JdbcFencedStore.builder(db).table(table).build();
        String key = "k-" + UUID.randomUUID();

        assertThatThrownBy(() -> ordersHolder.write(FencingToken.of("Orders", 5), key, "orders' value"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("column 'fence_resource'")
                .hasMessageContaining("does not compare keys byte for byte");
        assertThat(boundResource(db, table, key)).as("nothing was written").isNull();
    }

    /**
     * An install from before the key columns compared byte for byte (MariaDB/MySQL key columns in {@code utf8mb4_bin}, a PAD SPACE
     * collation: {@code "k"} and {@code "k "} are one key) is refused on first use, naming the
     * column and the migration, before anything is written — for the key-value store's
     * {@code item_key} and for a fence table's {@code resource}.
     */
    @org.junit.jupiter.api.Test
    void keyColumnsOfAnInstallBeforeTheExactCollationAreRefusedBeforeAnyWrite() throws SQLException {
        DataSource db = Databases.migrated(Databases.mariaDb());
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String store = "legacy_store_" + suffix;
        String fence = "legacy_fence_" + suffix;
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + store + " (item_key VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
                    + " NOT NULL PRIMARY KEY, item_value TEXT NULL, token BIGINT NOT NULL, version BIGINT NOT NULL,"
                    + " fence_resource VARBINARY(1024) NULL, updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))");
            statement.execute("CREATE TABLE " + fence + " (resource VARCHAR(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
                    + " NOT NULL PRIMARY KEY, token BIGINT NOT NULL, updated_at DATETIME(6) NOT NULL"
                    + " DEFAULT CURRENT_TIMESTAMP(6))");
        }
        FencedStore legacyStore = JdbcFencedStore.builder(db).table(store).build();
        assertThatThrownBy(() -> legacyStore.write(FencingToken.of("orders", 5), "k", "v"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("column 'item_key'")
                .hasMessageContaining("does not compare keys byte for byte")
                .hasMessageContaining("FencingMigrations.migrate");
        JdbcFence legacyFence = JdbcFence.builder(db).table(fence).build();
        assertThatThrownBy(() -> legacyFence.inTransaction(FencingToken.of("orders", 5), connection -> 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("column 'resource'")
                .hasMessageContaining("does not compare keys byte for byte");
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SELECT (SELECT COUNT(*) FROM " + store + ") + (SELECT COUNT(*) FROM "
                    + fence + ")")) {
                rows.next();
                assertThat(rows.getLong(1)).as("rows written").isZero();
            }
            statement.execute("DROP TABLE " + store);
            statement.execute("DROP TABLE " + fence);
        }
    }
}
