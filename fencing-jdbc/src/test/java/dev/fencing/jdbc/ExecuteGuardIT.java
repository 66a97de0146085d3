package dev.fencing.jdbc;

import static dev.fencing.jdbc.RowKeysIT.assertStale;
import static dev.fencing.jdbc.RowKeysIT.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link RowGuard#execute} cannot be used to write past the guard. */
class ExecuteGuardIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    private static final RowGuard ACCOUNTS = RowGuard.create("accounts", "id");

    /**
     * One lock per token value: the lock's fence row (which the row guard raises first, shared with
     * JdbcFence; RowGuardAndFenceRowShareMarksIT) then never refuses, and these tests reach the row's
     * own token and entry checks, which guard writers of different locks.
     */
    private static FencingToken token(long value) {
        return FencingToken.of("execute-" + value, value);
    }

    /** A statement like this one once set the token but never compared it; token 7 overwrote token 10 and moved it back. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aStatementThatOnlySetsTheTokenIsStillComparedAndRefused(SqlTestServer server) throws SQLException {
        try (Connection connection = Databases.migrated(server).getConnection()) {
            long id = newAccount(connection, 10, 150);
            assertStale(() -> ACCOUNTS.execute(connection, token(7), Map.of("id", id),
                    "UPDATE accounts SET balance = ?, fencing_token = :fencing_token WHERE id = ?", 70, id), 10, "set only");
            assertStale(() -> ACCOUNTS.execute(connection, token(7), Map.of("id", id),
                    "UPDATE accounts SET balance = ? WHERE id = ?", 70, id), 10, "no token at all");
            assertThat(row(connection, id)).isEqualTo("150@10");

            assertThat(ACCOUNTS.execute(connection, token(11), Map.of("id", id),
                    "UPDATE accounts SET balance = balance + ? WHERE balance >= ?", 5, 0)).isEqualTo(1);
            assertThat(row(connection, id)).as("the guard sets the token").isEqualTo("155@11");
        }
    }

    /** An OR in the caller's condition stays inside its parentheses, and the key pins the one row. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anOrInTheConditionCannotReachPastTheGuardOrToOtherRows(SqlTestServer server) throws SQLException {
        try (Connection connection = Databases.migrated(server).getConnection()) {
            long id = newAccount(connection, 10, 150);
            long other = newAccount(connection, 3, 30);
            assertStale(() -> ACCOUNTS.execute(connection, token(7), Map.of("id", id),
                    "UPDATE accounts SET balance = ? WHERE id = ? OR fencing_token <= :fencing_token OR 1 = 1", 0, id), 10,
                    "or");
            assertThat(ACCOUNTS.execute(connection, token(12), Map.of("id", id),
                    "UPDATE accounts SET balance = ? WHERE id = ? OR 1 = 1", 0, other)).isEqualTo(1);
            assertThat(row(connection, id)).isEqualTo("0@12");
            assertThat(row(connection, other)).as("untouched").isEqualTo("30@3");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void insertDeleteAndOtherTablesAreRefusedAndNothingRuns(SqlTestServer server) throws SQLException {
        try (Connection connection = Databases.migrated(server).getConnection()) {
            long id = newAccount(connection, 10, 150);
            long fresh = id + 1;
            assertThatThrownBy(() -> ACCOUNTS.execute(connection, token(11), Map.of("id", fresh),
                    "INSERT INTO accounts (id, balance, fencing_token) VALUES (?, 1, :fencing_token)", fresh))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use insert or upsert");
            assertThatThrownBy(() -> ACCOUNTS.execute(connection, token(11), Map.of("id", id),
                    "DELETE FROM accounts WHERE id = ?", id))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use delete");
            assertThatThrownBy(() -> ACCOUNTS.execute(connection, token(11), Map.of("id", id),
                    "UPDATE unfenced SET balance = 0 WHERE id = ?", id))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the statement updates 'unfenced', but this RowGuard guards 'accounts'");
            assertThat(row(connection, id)).isEqualTo("150@10");
            assertThat(count(connection, "SELECT COUNT(*) FROM accounts WHERE id = " + fresh)).isZero();

            String qualified = (server.vendor().equals("postgresql") ? "public" : connection.getCatalog()) + ".accounts";
            assertThat(ACCOUNTS.execute(connection, token(11), Map.of("id", id),
                    "UPDATE " + qualified + " SET balance = 1")).as("the catalog's spelling of the same table").isEqualTo(1);
        }
    }

    /** A row a newer holder deleted: its mark is in the fence table, and execute reports it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anUpdateOfARowDeletedWithANewerTokenIsStale(SqlTestServer server) throws SQLException {
        try (Connection connection = Databases.migrated(server).getConnection()) {
            long id = newAccount(connection, 5, 100);
            ACCOUNTS.delete(connection, token(10), Map.of("id", id));
            assertStale(() -> ACCOUNTS.execute(connection, token(7), Map.of("id", id),
                    "UPDATE accounts SET balance = 1"), 10, "deleted");
            assertStale(() -> ACCOUNTS.update(connection, token(7), Map.of("id", id), Map.of("balance", 1)), 10, "update");
            assertThat(ACCOUNTS.execute(connection, token(11), Map.of("id", id), "UPDATE accounts SET balance = 1"))
                    .as("no row, and no newer mark").isZero();
        }
    }

    /**
     * The statement updates the table this RowGuard resolved and guards (the one whose fence
     * entries it raises), however the connection's search_path spells it: before, a connection
     * whose search_path found another {@code accounts} first updated that table instead.
     */
    @Test
    void aSearchPathThatFindsAnotherTableOfTheSameNameStillUpdatesTheGuardedOne() throws SQLException {
        RowGuard accounts = RowGuard.create("accounts", "id");
        try (Connection connection = Databases.migrated(Databases.postgres()).getConnection()) {
            long id = newAccount(connection, 10, 150);
            accounts.highWaterMark(connection, Map.of("id", id)); // resolved on the default search_path: public
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE SCHEMA IF NOT EXISTS shadow");
                statement.execute("CREATE TABLE IF NOT EXISTS shadow.accounts (LIKE public.accounts INCLUDING ALL)");
                statement.execute("INSERT INTO shadow.accounts SELECT * FROM public.accounts WHERE id = " + id);
                statement.execute("SET search_path = shadow, public");
            }
            try {
                assertThat(accounts.execute(connection, token(11), Map.of("id", id),
                        "UPDATE accounts SET balance = ? WHERE id = ?", 5, id)).isEqualTo(1);
            } finally {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("RESET search_path");
                }
            }
            assertThat(row(connection, id)).as("public.accounts, the guarded table").isEqualTo("5@11");
            assertThat(count(connection, "SELECT balance FROM shadow.accounts WHERE id = " + id)).as("shadow.accounts")
                    .isEqualTo(150);
        }
    }

    private static long newAccount(Connection connection, long token, long balance) throws SQLException {
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE - 1);
        ACCOUNTS.upsert(connection, token(token), Map.of("id", id), Map.of("balance", balance));
        return id;
    }

    private static String row(Connection connection, long id) throws SQLException {
        return count(connection, "SELECT balance FROM accounts WHERE id = " + id) + "@"
                + count(connection, "SELECT fencing_token FROM accounts WHERE id = " + id);
    }
}
