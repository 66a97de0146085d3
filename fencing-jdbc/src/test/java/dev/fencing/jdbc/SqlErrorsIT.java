package dev.fencing.jdbc;

import static dev.fencing.jdbc.RowKeysIT.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Only a unique violation of the row's own key means "the row exists"; a CHECK
 * violation, or a unique violation of another column, is the caller's error and surfaces unchanged.
 */
class SqlErrorsIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    private static final RowGuard CHECKED = RowGuard.create("checked", "id");

    private static FencingToken token(long value) {
        return FencingToken.of("errors", value);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aCheckViolationSurfacesFromInsertAndUpsertAndNothingIsWritten(SqlTestServer server) throws SQLException {
        try (Connection connection = Databases.migrated(server).getConnection()) {
            long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            Map<String, Object> key = Map.of("id", id);
            assertThatThrownBy(() -> CHECKED.insert(connection, token(5), key, Map.of("balance", -1)))
                    .as("used to return false, 'the row exists'").isInstanceOfSatisfying(SQLException.class, checkViolation(server));
            assertThatThrownBy(() -> CHECKED.upsert(connection, token(5), key, Map.of("balance", -1)))
                    .as("used to end in 'kept racing'").isInstanceOfSatisfying(SQLException.class, checkViolation(server));
            assertThat(CHECKED.highWaterMark(connection, key)).as("the fence entry was rolled back too").isEmpty();
            assertThat(count(connection, "SELECT COUNT(*) FROM checked WHERE id = " + id)).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aUniqueViolationOfAnotherColumnIsNotTheRowExisting(SqlTestServer server) throws SQLException {
        try (Connection connection = Databases.migrated(server).getConnection()) {
            String email = UUID.randomUUID() + "@example.org";
            long first = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            assertThat(CHECKED.insert(connection, token(5), Map.of("id", first), Map.of("balance", 1, "email", email))).isTrue();
            assertThat(CHECKED.insert(connection, token(5), Map.of("id", first), Map.of("balance", 2))).as("this key").isFalse();
            assertThatThrownBy(() -> CHECKED.insert(connection, token(5), Map.of("id", first + 1),
                    Map.of("balance", 1, "email", email)))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(
                            server.vendor().equals("postgresql") ? e.getSQLState() : Integer.toString(e.getErrorCode()))
                            .isIn("23505", "1062"));
        }
    }

    /** JdbcFencedStore on a table of its columns with a CHECK: the violation is the cause of the error, not a lost race. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theKeyValueStoreSurfacesACheckViolation(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        boolean postgres = server.vendor().equals("postgresql");
        String table = "short_values_" + Integer.toHexString(ThreadLocalRandom.current().nextInt());
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (item_key " + (postgres ? "VARCHAR(256)" : "VARBINARY(1024)")
                    + " NOT NULL PRIMARY KEY, item_value TEXT CHECK (CHAR_LENGTH(item_value) < 5), token BIGINT NOT NULL,"
                    + " version BIGINT NOT NULL, fence_resource " + (postgres ? "VARCHAR(256)" : "VARBINARY(1024)")
                    + " NULL, updated_at " + (postgres ? "TIMESTAMP" : "DATETIME(6)")
                    + " NOT NULL DEFAULT CURRENT_TIMESTAMP)");
        }
        FencedStore store = JdbcFencedStore.builder(db).table(table).build();
        assertThatThrownBy(() -> store.write(token(1), "k", "too long"))
                .isInstanceOf(UncheckedSqlException.class)
                .satisfies(e -> checkViolation(server).accept(((UncheckedSqlException) e).getCause()));
        store.write(token(1), "k", "ok");
        assertThatThrownBy(() -> store.update(token(2), "k", v -> "too long")).isInstanceOf(UncheckedSqlException.class);
        assertThat(store.read("k").orElseThrow().value()).isEqualTo("ok");
    }

    private static Consumer<SQLException> checkViolation(SqlTestServer server) {
        return e -> {
            if (server.vendor().equals("postgresql")) {
                assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("23514");
            } else {
                assertThat(e.getErrorCode()).as(e.getMessage()).isEqualTo(4025); // MariaDB ER_CONSTRAINT_FAILED
            }
        };
    }
}
