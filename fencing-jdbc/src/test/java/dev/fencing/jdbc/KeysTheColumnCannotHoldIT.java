package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A key is the row the database STORES, not the spelling given. An INSERT into VARCHAR(n) drops
 * trailing spaces beyond n (PostgreSQL, and MySQL/MariaDB in every sql_mode), and MariaDB without
 * strict mode clamps an out-of-range integer (300 into TINYINT is 127). The row guard named the
 * fence entry after the spelling given ('...:abcdefgh '): a fresh entry without the deleted row's
 * mark, so a zombie re-created a row a newer holder had deleted (found by the adversarial review;
 * these tests failed before the fix). Now a key the column cannot hold as given is refused with
 * {@link IllegalArgumentException} naming the key, the column and its size, before anything is
 * written; an INSERT on a MySQL/MariaDB connection without strict mode is refused too. The fence
 * row's resources (at most 256 characters) always fit {@code fencing_fence.resource} whole.
 */
class KeysTheColumnCannotHoldIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    private static void createTable(DataSource db, SqlTestServer server) throws SQLException {
        boolean postgres = server.vendor().equals("postgresql");
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS short_kv (k VARCHAR(8) "
                    + (postgres ? "" : "COLLATE utf8mb4_nopad_bin ") + "PRIMARY KEY, v TEXT,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
            statement.execute("CREATE TABLE IF NOT EXISTS small_kv (id SMALLINT PRIMARY KEY, v TEXT,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
        }
    }

    /** Deleted items never come back under an older token: an upsert whose key the column would cut is refused. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anUpsertWithTrailingSpacesBeyondTheColumnLengthIsRefusedAndTheDeletedRowStaysDeleted(SqlTestServer server)
            throws SQLException {
        DataSource db = Databases.migrated(server);
        createTable(db, server);
        String key = UUID.randomUUID().toString().substring(0, 8); // exactly VARCHAR(8)
        String lock = "truncated-" + key;
        RowGuard newer = RowGuard.create("short_kv", "k");
        RowGuard zombie = RowGuard.create("short_kv", "k"); // another client instance
        try (Connection holder = db.getConnection(); Connection zombieConnection = db.getConnection()) {
            newer.upsert(holder, FencingToken.of(lock, 9), Map.of("k", key), Map.of("v", "live"));
            newer.delete(holder, FencingToken.of(lock, 10), Map.of("k", key));
            assertThat(rows(holder, key)).as("deleted").isZero();

            assertThatThrownBy(() -> zombie.upsert(zombieConnection, FencingToken.of("other-" + key, 7),
                    Map.of("k", key + " "), Map.of("v", "zombie")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + key + " '").hasMessageContaining("short_kv")
                    .hasMessageContaining("varchar(8)").hasMessageContaining("nothing was written");
            assertThat(rows(holder, key)).as("the row '" + key + "' deleted with token 10").isZero();
            assertThat(entries(holder, "%short_kv:" + key + "%")).as("only the entry of the key as stored")
                    .isEqualTo(1);
        }
    }

    /** The same for insert; a key that fits exactly still works, and its deleted row's mark holds. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anInsertWithTrailingSpacesBeyondTheColumnLengthIsRefusedAndAKeyThatFitsIsFenced(SqlTestServer server)
            throws SQLException {
        DataSource db = Databases.migrated(server);
        createTable(db, server);
        String key = UUID.randomUUID().toString().substring(0, 8);
        String lock = "truncated-" + key;
        RowGuard newer = RowGuard.create("short_kv", "k");
        RowGuard zombie = RowGuard.create("short_kv", "k");
        try (Connection holder = db.getConnection(); Connection zombieConnection = db.getConnection()) {
            newer.upsert(holder, FencingToken.of(lock, 9), Map.of("k", key), Map.of("v", "live"));
            newer.delete(holder, FencingToken.of(lock, 10), Map.of("k", key));
            assertThatThrownBy(() -> zombie.insert(zombieConnection, FencingToken.of("other-" + key, 7),
                    Map.of("k", key + "   "), Map.of("v", "zombie")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 8");
            assertThat(rows(holder, key)).isZero();
            assertThatThrownBy(() -> zombie.insert(zombieConnection, FencingToken.of("other-" + key, 7),
                    Map.of("k", key), Map.of("v", "zombie"))).isInstanceOf(StaleTokenException.class);
            assertThat(rows(holder, key)).isZero();
        }
    }

    /** Integers outside the column's type are refused on both databases (PostgreSQL would fail, MariaDB may clamp). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anIntegerKeyOutsideTheColumnsRangeIsRefused(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        createTable(db, server);
        RowGuard small = RowGuard.create("small_kv", "id");
        try (Connection connection = db.getConnection()) {
            assertThatThrownBy(() -> small.upsert(connection, FencingToken.of("small-kv-range", 3),
                    Map.of("id", 40000), Map.of("v", "x"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("40000").hasMessageContaining("-32768 to 32767").hasMessageContaining("small_kv");
            assertThat(entries(connection, "%small_kv:40000")).isZero();
            small.upsert(connection, FencingToken.of("small-kv-range", 3), Map.of("id", 32767), Map.of("v", "x"));
            assertThat(small.highWaterMark(connection, Map.of("id", 32767))).hasValue(3);
        }
    }

    /**
     * MariaDB without strict mode (sql_mode='' is common in legacy applications): an out-of-range
     * TINYINT key is refused as out of range instead of being clamped onto row 127, and an insert of a
     * key in range is refused because the connection is not strict; row 127, deleted with token 10,
     * stays deleted.
     */
    @Test
    void onMariaDbWithoutStrictModeAClampedKeyAndAnyInsertAreRefused() throws SQLException {
        DataSource strict = Databases.migrated(Databases.mariaDb());
        try (Connection connection = strict.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS tiny_kv (id TINYINT PRIMARY KEY, v TEXT,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
            statement.execute("DELETE FROM tiny_kv");
        }
        DataSource lax = Databases.mariaDbWith("sessionVariables=sql_mode=''");
        RowGuard newer = RowGuard.create("tiny_kv", "id");
        RowGuard zombie = RowGuard.create("tiny_kv", "id");
        String lock = "tiny-" + UUID.randomUUID();
        try (Connection holder = strict.getConnection(); Connection zombieConnection = lax.getConnection()) {
            newer.upsert(holder, FencingToken.of(lock, 9), Map.of("id", 127), Map.of("v", "live"));
            newer.delete(holder, FencingToken.of(lock, 10), Map.of("id", 127));
            assertThatThrownBy(() -> zombie.upsert(zombieConnection, FencingToken.of("other-" + lock, 7),
                    Map.of("id", 300), Map.of("v", "zombie"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("300").hasMessageContaining("-128 to 127");
            assertThatThrownBy(() -> zombie.insert(zombieConnection, FencingToken.of("other-" + lock, 7),
                    Map.of("id", 100), Map.of("v", "zombie"))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("strict mode").hasMessageContaining("STRICT_TRANS_TABLES");
            try (Statement statement = holder.createStatement();
                    ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM tiny_kv")) {
                result.next();
                assertThat(result.getLong(1)).as("row 127 deleted with token 10; nothing inserted since").isZero();
            }
            assertThat(entries(holder, "%tiny_kv:100")).as("the refused insert left no entry").isZero();
        }
    }

    /**
     * The fence row path: a resource is at most 256 characters, and {@code fencing_fence.resource}
     * holds 256 characters (PostgreSQL) or 1024 bytes (MariaDB) whole, so two resources that differ
     * only in trailing spaces at full length stay two fence rows, also without strict mode.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void fenceRowResourcesAreNeverCut(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        String stem = UUID.randomUUID() + "é€😀";
        String full = stem + " ".repeat(256 - stem.length());
        String shorter = full.substring(0, 255);
        JdbcFence fence = JdbcFence.create(db);
        fence.inTransaction(FencingToken.of(full, 10), connection -> 0);
        fence.inTransaction(FencingToken.of(shorter, 7), connection -> 0); // another resource: accepted
        assertThatThrownBy(() -> fence.inTransaction(FencingToken.of(full, 7), connection -> 0))
                .isInstanceOf(StaleTokenException.class);
        if (!server.vendor().equals("postgresql")) {
            JdbcFence lax = JdbcFence.create(Databases.mariaDbWith("sessionVariables=sql_mode=''"));
            assertThatThrownBy(() -> lax.inTransaction(FencingToken.of(full, 8), connection -> 0))
                    .isInstanceOf(StaleTokenException.class);
        }
        try (Connection connection = db.getConnection()) {
            assertThat(entries(connection, stem + "%")).isEqualTo(2);
        }
    }

    private static long rows(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM short_kv WHERE k = ?")) {
            statement.setString(1, key);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }

    private static long entries(Connection connection, String pattern) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT COUNT(*) FROM fencing_fence WHERE resource LIKE ?")) {
            statement.setString(1, pattern);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }
}
