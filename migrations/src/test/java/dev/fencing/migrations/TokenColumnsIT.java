package dev.fencing.migrations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.testkit.servers.SqlTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link TokenColumns} finds the table a statement would find, and accepts only a usable token column. */
class TokenColumnsIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(TestServers.postgres(), TestServers.mariaDb());
    }

    /** A token column compared as text ('10' < '9'), as a 32-bit number, or nullable would not fence. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anExistingColumnOfAnotherTypeOrNullableIsRefusedWithTheFix(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE texty (id BIGINT PRIMARY KEY, fencing_token VARCHAR(20) NOT NULL)");
            statement.execute("CREATE TABLE narrow (id BIGINT PRIMARY KEY, fencing_token INTEGER NOT NULL)");
            statement.execute("CREATE TABLE nullable (id BIGINT PRIMARY KEY, fencing_token BIGINT)");
            statement.execute("CREATE TABLE fine (id BIGINT PRIMARY KEY, FENCING_TOKEN BIGINT NOT NULL DEFAULT 0)");

            assertThatThrownBy(() -> TokenColumns.add(connection, "texty", "fencing_token"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table 'texty' already has a column 'fencing_token' of type")
                    .hasMessageContaining("must be BIGINT NOT NULL");
            assertThatThrownBy(() -> TokenColumns.add(connection, "narrow", "fencing_token"))
                    .hasMessageContaining("int").hasMessageContaining("must be BIGINT NOT NULL");
            assertThatThrownBy(() -> TokenColumns.add(connection, "nullable", "fencing_token"))
                    .hasMessageContaining("bigint NULL")
                    .hasMessageContaining("UPDATE nullable SET fencing_token = 0 WHERE fencing_token IS NULL");
            assertThat(TokenColumns.add(connection, "fine", "fencing_token")).as("same column, other case").isFalse();
        }
    }

    /**
     * PostgreSQL: with {@code search_path = app, public} an unqualified name that exists only in
     * {@code public} is the table a statement finds; the current schema alone ({@code app}) would miss it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anUnqualifiedNameIsLookedUpAsAStatementWouldFindIt(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            if (server.vendor().equals("postgresql")) {
                statement.execute("CREATE TABLE public.ledger (id BIGINT PRIMARY KEY)");
                statement.execute("CREATE SCHEMA app");
                statement.execute("CREATE TABLE app.other (id BIGINT PRIMARY KEY)");
                statement.execute("SET search_path = app, public");
                assertThat(connection.getSchema()).isEqualTo("app");
                assertThat(TokenColumns.add(connection, "ledger", "fencing_token")).isTrue();
                assertThat(TokenColumns.add(connection, "public.ledger", "fencing_token")).isFalse();
                assertThat(TokenColumns.add(connection, "LEDGER", "fencing_token")).as("unquoted names fold").isFalse();
                assertThat(tokenOf(statement, "public.ledger")).isZero();
            } else {
                statement.execute("CREATE DATABASE " + otherDatabase(connection));
                statement.execute("CREATE TABLE " + otherDatabase(connection) + ".ledger (id BIGINT PRIMARY KEY)");
                assertThatThrownBy(() -> TokenColumns.add(connection, "ledger", "fencing_token"))
                        .as("not in the current database").hasMessageContaining("does not exist");
                assertThat(TokenColumns.add(connection, otherDatabase(connection) + ".ledger", "fencing_token")).isTrue();
                assertThat(tokenOf(statement, otherDatabase(connection) + ".ledger")).isZero();
                statement.execute("CREATE TABLE Ledger (id BIGINT PRIMARY KEY)");
                assertThat(TokenColumns.add(connection, "Ledger", "fencing_token")).isTrue();
                assertThatThrownBy(() -> TokenColumns.add(connection, "LEDGER", "fencing_token"))
                        .as("table names are case-sensitive here (lower_case_table_names = 0)")
                        .hasMessageContaining("does not exist");
            }
        }
    }

    private static String otherDatabase(Connection connection) throws SQLException {
        return connection.getCatalog() + "_other";
    }

    private static long tokenOf(Statement statement, String table) throws SQLException {
        statement.execute("INSERT INTO " + table + " (id) VALUES (1)");
        try (ResultSet row = statement.executeQuery("SELECT fencing_token FROM " + table + " WHERE id = 1")) {
            row.next();
            return row.getLong(1);
        }
    }
}
