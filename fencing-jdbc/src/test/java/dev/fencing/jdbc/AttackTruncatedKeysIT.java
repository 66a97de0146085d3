package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ATTACK (adversarial review, branch attack-stores): one key, many spellings — by the database's
 * STORE rule, not its compare rule. A VARCHAR(n) key column with an exact collation (accepted as
 * TEXT_EXACT) silently truncates trailing spaces in excess of n when a row is INSERTED, on both
 * PostgreSQL (SQL standard) and MySQL/MariaDB (whatever the sql_mode). So 'abcdefgh ' inserted into
 * VARCHAR(8) becomes the row 'abcdefgh', while the toolkit names its fence entry after the spelling
 * it was given ('...:abcdefgh '), a fresh entry with no mark: a zombie re-creates a row that a newer
 * holder deleted, under its older token.
 */
class AttackTruncatedKeysIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    private static FencingToken token(long value) {
        return FencingToken.of("truncated-keys", value);
    }

    private static void createTable(DataSource db, SqlTestServer server) throws SQLException {
        boolean postgres = server.vendor().equals("postgresql");
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS short_kv (k VARCHAR(8) "
                    + (postgres ? "" : "COLLATE utf8mb4_nopad_bin ") + "PRIMARY KEY, v TEXT,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
        }
    }

    /** BREAKS "deleted items never come back under an older token" (upsert). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aZombieUpsertWithTrailingSpacesBeyondTheColumnLengthRecreatesADeletedRow(SqlTestServer server)
            throws SQLException {
        DataSource db = Databases.migrated(server);
        createTable(db, server);
        String key = UUID.randomUUID().toString().substring(0, 8); // exactly VARCHAR(8)
        FencedTable newer = FencedTable.of("short_kv", "k");
        FencedTable zombie = FencedTable.of("short_kv", "k"); // another client instance
        try (Connection holder = db.getConnection(); Connection zombieConnection = db.getConnection()) {
            newer.upsert(holder, token(9), Map.of("k", key), Map.of("v", "live"));
            newer.delete(holder, token(10), Map.of("k", key));
            assertThat(rows(holder, key)).as("deleted").isZero();

            Throwable refused = null;
            try {
                zombie.upsert(zombieConnection, token(7), Map.of("k", key + " "), Map.of("v", "zombie"));
            } catch (StaleTokenException e) {
                refused = e;
            }
            assertThat(rows(holder, key)).as("the row '" + key + "' deleted with token 10, re-created by token 7 as '"
                    + key + " ' (the database truncates the trailing space on insert)").isZero();
            assertThat(refused).as("the zombie's upsert is refused").isInstanceOf(StaleTokenException.class);
        }
    }

    /** BREAKS "deleted items never come back under an older token" (insert). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aZombieInsertWithTrailingSpacesBeyondTheColumnLengthRecreatesADeletedRow(SqlTestServer server)
            throws SQLException {
        DataSource db = Databases.migrated(server);
        createTable(db, server);
        String key = UUID.randomUUID().toString().substring(0, 8);
        FencedTable newer = FencedTable.of("short_kv", "k");
        FencedTable zombie = FencedTable.of("short_kv", "k");
        try (Connection holder = db.getConnection(); Connection zombieConnection = db.getConnection()) {
            newer.upsert(holder, token(9), Map.of("k", key), Map.of("v", "live"));
            newer.delete(holder, token(10), Map.of("k", key));
            assertThatThrownBy(() -> zombie.insert(zombieConnection, token(7), Map.of("k", key + "   "),
                    Map.of("v", "zombie"))).isInstanceOf(StaleTokenException.class);
            assertThat(rows(holder, key)).isZero();
        }
    }

    /**
     * BREAKS "deleted items never come back under an older token" on MariaDB without strict mode
     * (sql_mode='' is common in legacy applications; the connection sets it, the toolkit accepts it):
     * an out-of-range integer key is clamped on INSERT (300 into TINYINT is 127; a too-long VARCHAR
     * key is likewise cut); the fence entry is named after the spelling given, so a zombie re-creates
     * a deleted row under another number.
     */
    @org.junit.jupiter.api.Test
    void onMariaDbWithoutStrictModeAClampedIntegerKeyRecreatesADeletedRow() throws SQLException {
        DataSource strict = Databases.migrated(Databases.mariaDb());
        try (Connection connection = strict.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS tiny_kv (id TINYINT PRIMARY KEY, v TEXT,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
            statement.execute("DELETE FROM tiny_kv");
        }
        DataSource lax = Databases.mariaDbWith("sessionVariables=sql_mode=''");
        FencedTable newer = FencedTable.of("tiny_kv", "id");
        FencedTable zombie = FencedTable.of("tiny_kv", "id");
        try (Connection holder = strict.getConnection(); Connection zombieConnection = lax.getConnection()) {
            newer.upsert(holder, token(9), Map.of("id", 127), Map.of("v", "live"));
            newer.delete(holder, token(10), Map.of("id", 127));
            Throwable refused = null;
            try {
                zombie.upsert(zombieConnection, token(7), Map.of("id", 300), Map.of("v", "zombie"));
            } catch (RuntimeException e) {
                refused = e;
            }
            try (Statement statement = holder.createStatement();
                    ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM tiny_kv WHERE id = 127")) {
                result.next();
                assertThat(result.getLong(1)).as("row 127 deleted with token 10, re-created by token 7 as id 300"
                        + " (clamped to 127 on insert)").isZero();
            }
            assertThat(refused).as("the zombie's upsert").isNotNull();
        }
    }

    private static long rows(Connection connection, String key) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM short_kv WHERE k = '" + key + "'")) {
            result.next();
            return result.getLong(1);
        }
    }
}
