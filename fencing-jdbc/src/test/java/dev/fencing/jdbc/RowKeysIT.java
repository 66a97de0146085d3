package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.SqlTestServer;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One row, many spellings: a row's fence entry is the same for every spelling of its table and key
 * that the database treats as that row, and key columns whose equality the toolkit cannot
 * reproduce are refused. Each test deletes a row with token 10 under one spelling and has a zombie
 * with token 7 try to bring it back under another.
 */
class RowKeysIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    /**
     * One lock per token value: the lock's fence row (which the row guard raises first, shared with
     * JdbcFence; RowGuardAndFenceRowShareMarksIT) then never refuses, and these tests reach the row's
     * own token and entry checks, which guard writers of different locks.
     */
    private static FencingToken token(long value) {
        return FencingToken.of("row-keys-" + value, value);
    }

    /** On a case-insensitive column 'AliceN' and 'alicen' are one row; the toolkit cannot name its entry. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aCaseInsensitiveKeyColumnIsRefusedBeforeAnythingIsWritten(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        RowGuard ci = RowGuard.create("ci_kv", "k");
        String name = "AliceN-" + UUID.randomUUID();
        try (Connection connection = db.getConnection()) {
            assertThatThrownBy(() -> ci.delete(connection, token(10), Map.of("k", name)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("key column 'k' of table")
                    .hasMessageContaining("ci_kv")
                    .hasMessageContaining(server.vendor().equals("postgresql") ? "ignore_case" : "utf8mb4_general_ci")
                    .hasMessageContaining("does not compare values exactly")
                    .hasMessageContaining("utf8mb4_nopad_bin");
            assertThatThrownBy(() -> ci.upsert(connection, token(7), Map.of("k", name.toLowerCase()), Map.of("v", "zombie")))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(count(connection, "SELECT COUNT(*) FROM ci_kv")).isZero();
            assertThat(count(connection, "SELECT COUNT(*) FROM fencing_fence WHERE resource LIKE '%ci_kv:%'")).isZero();
        }
    }

    /** {@code accounts}, {@code public.accounts}, {@code ACCOUNTS} (PostgreSQL folds it) or {@code <database>.accounts}. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void everySpellingOfTheTableNamesTheSameFenceEntry(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        try (Connection connection = db.getConnection()) {
            List<String> spellings = server.vendor().equals("postgresql")
                    ? List.of("accounts", "public.accounts", "ACCOUNTS", "Public.Accounts")
                    : List.of("accounts", connection.getCatalog() + ".accounts");
            long id = newId();
            RowGuard.create(spellings.get(0), "id").upsert(connection, token(9), Map.of("id", id), Map.of("balance", 1));
            RowGuard.create(spellings.get(0), "id").delete(connection, token(10), Map.of("id", id));
            for (String spelling : spellings.subList(1, spellings.size())) {
                RowGuard zombie = RowGuard.create(spelling, "id");
                assertStale(() -> zombie.upsert(connection, token(7), Map.of("id", id), Map.of("balance", 70)), 10, spelling);
                assertStale(() -> zombie.insert(connection, token(7), Map.of("id", id), Map.of("balance", 70)), 10, spelling);
                assertThat(zombie.highWaterMark(connection, Map.of("id", id))).as(spelling).hasValue(10);
            }
            assertThat(count(connection, "SELECT COUNT(*) FROM accounts WHERE id = " + id)).isZero();
            if (server.vendor().equals("mariadb")) {
                assertThatThrownBy(() -> RowGuard.create("Accounts", "id").delete(connection, token(11), Map.of("id", id)))
                        .as("table names are case-sensitive here: Accounts is another table, and there is none")
                        .hasMessageContaining("table 'Accounts' does not exist");
            }
        }
    }

    /** An integer key given as 42, 42L, "0042", "+42" or BigInteger 42 is one row (MySQL compares a string to a number as doubles). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anIntegerKeyInAnyFormIsOneRow(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        RowGuard accounts = RowGuard.create("accounts", "id");
        try (Connection connection = db.getConnection()) {
            long id = ThreadLocalRandom.current().nextLong(1, Integer.MAX_VALUE);
            accounts.upsert(connection, token(9), Map.of("id", id), Map.of("balance", 1));
            accounts.delete(connection, token(10), Map.of("id", "000" + id));
            for (Object spelling : List.of(id, (int) id, "+" + id, BigInteger.valueOf(id))) {
                assertStale(() -> accounts.upsert(connection, token(7), Map.of("id", spelling), Map.of("balance", 70)), 10,
                        spelling);
            }
            assertThatThrownBy(() -> accounts.upsert(connection, token(11), Map.of("id", id + "abc"), Map.of("balance", 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds integers");
            assertThatThrownBy(() -> accounts.upsert(connection, token(11), Map.of("id", 1.5), Map.of("balance", 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds integers");

            // neighbours above 2^53, which a comparison through doubles would take for one row
            long big = (1L << 53) + ThreadLocalRandom.current().nextLong(1, 1L << 40) * 2;
            accounts.upsert(connection, token(1), Map.of("id", big), Map.of("balance", 1));
            accounts.upsert(connection, token(1), Map.of("id", big + 1), Map.of("balance", 1));
            assertThat(accounts.update(connection, token(2), Map.of("id", Long.toString(big + 1)), Map.of("balance", 2)))
                    .isTrue();
            assertThat(count(connection, "SELECT balance FROM accounts WHERE id = " + big)).as("the neighbour").isEqualTo(1);
            assertThat(count(connection, "SELECT balance FROM accounts WHERE id = " + (big + 1))).isEqualTo(2);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aUuidKeyInEitherCaseOrAsAUuidIsOneRow(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        RowGuard table = RowGuard.create("uuid_kv", "id");
        UUID id = UUID.randomUUID();
        try (Connection connection = db.getConnection()) {
            table.upsert(connection, token(9), Map.of("id", id), Map.of("v", "a"));
            table.delete(connection, token(10), Map.of("id", id.toString().toUpperCase()));
            assertStale(() -> table.upsert(connection, token(7), Map.of("id", id.toString()), Map.of("v", "z")), 10, "lower");
            assertStale(() -> table.insert(connection, token(7), Map.of("id", id), Map.of("v", "z")), 10, "UUID");
            assertThatThrownBy(() -> table.upsert(connection, token(11), Map.of("id", id.toString().replace("-", "")),
                    Map.of("v", "a"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8-4-4-4-12");
        }
    }

    /** A binary PAD SPACE column (MariaDB utf8mb4_bin, PostgreSQL char(n)): 'k' and 'k ' are one row and one entry. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void whereTheColumnIgnoresTrailingSpacesSoDoesTheEntry(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        RowGuard pad = RowGuard.create("pad_kv", "k");
        String k = "k" + ThreadLocalRandom.current().nextInt(1_000_000);
        try (Connection connection = db.getConnection()) {
            pad.upsert(connection, token(9), Map.of("k", k + "  "), Map.of("v", "a"));
            pad.delete(connection, token(10), Map.of("k", k));
            assertStale(() -> pad.upsert(connection, token(7), Map.of("k", k + " "), Map.of("v", "zombie")), 10, "k ");
            pad.upsert(connection, token(11), Map.of("k", k + " "), Map.of("v", "b"));
            assertThat(pad.highWaterMark(connection, Map.of("k", k))).hasValue(11);
            assertThat(count(connection, "SELECT COUNT(*) FROM pad_kv WHERE k = '" + k + "'")).isEqualTo(1);
            assertThat(pad.highWaterMark(connection, Map.of("k", " " + k))).as("leading spaces count").isEmpty();
        }
    }

    /** ("a,b", "c") and ("a", "b,c") were both 'pairs:a,b,c' while a separator inside a value went unescaped. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void compositeKeysWithTheSeparatorInsideAreDifferentEntries(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        RowGuard pairs = RowGuard.create("pairs", "a", "b");
        String a = "a" + ThreadLocalRandom.current().nextInt(1_000_000);
        Map<String, Object> first = Map.of("a", a + ",b", "b", "c");
        Map<String, Object> second = Map.of("a", a, "b", "b,c");
        Map<String, Object> third = Map.of("a", a + "\\", "b", ",b,c");
        try (Connection connection = db.getConnection()) {
            pairs.delete(connection, token(20), second);
            pairs.upsert(connection, token(15), first, Map.of("v", "first"));
            pairs.upsert(connection, token(16), third, Map.of("v", "third"));
            assertThat(pairs.highWaterMark(connection, first)).hasValue(15);
            assertThat(pairs.highWaterMark(connection, second)).hasValue(20);
            assertThat(pairs.highWaterMark(connection, third)).hasValue(16);
            assertStale(() -> pairs.upsert(connection, token(19), second, Map.of("v", "zombie")), 20, "second");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aTextKeyGivenAsANumberIsRefused(SqlTestServer server) throws SQLException {
        try (Connection connection = Databases.migrated(server).getConnection()) {
            assertThatThrownBy(() -> RowGuard.create("guarded_kv", "k").upsert(connection, token(1), Map.of("k", 7),
                    Map.of("v", "x", "version", 1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key column 'k' holds text: give a String, got Integer '7'");
        }
    }

    static void assertStale(ThrowingWrite write, long mark, Object spelling) {
        assertThatThrownBy(write::run).as(String.valueOf(spelling))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(mark));
    }

    @FunctionalInterface
    interface ThrowingWrite {
        void run() throws SQLException;
    }

    static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
            return row.next() ? row.getLong(1) : 0;
        }
    }

    private static long newId() {
        return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }
}
