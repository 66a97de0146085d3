package dev.fencing.migrations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.testkit.servers.SqlTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The migrations on real PostgreSQL and MariaDB, each test in a fresh database. */
class MigrationsIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(TestServers.postgres(), TestServers.mariaDb());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theToolkitTablesAreAppliedOnceAndTheSecondRunChangesNothing(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isEqualTo(1);
        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isZero();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO fencing_token_counter (resource, token) VALUES ('a', 1)");
            statement.execute("INSERT INTO fencing_store (item_key, item_value, token, version) VALUES ('k', NULL, 3, 1)");
            assertThat(count(statement, "SELECT COUNT(*) FROM " + FencingMigrations.HISTORY_TABLE)).isPositive();
            if (FencingMigrations.vendorOf(db) == Vendor.MYSQL) {
                statement.execute("SET SESSION sql_mode = ''"); // not strict: a missing kind becomes ''
                assertThatThrownBy(() -> statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('a', 1)"))
                        .as("a row of no kind, refused by the check whatever the sql_mode")
                        .isInstanceOf(SQLException.class);
            }
        }
    }

    /** Keys that differ in case, trailing spaces or accents are different keys in every toolkit table. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theToolkitsKeyColumnsCompareExactly(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        FencingMigrations.migrate(db);
        assertKeysCompareExactly(db);
    }

    /**
     * An install made before keys compared exactly (MySQL: utf8mb4_bin, where 'a' = 'a '; times in
     * TIMESTAMP(6), which ends in 2038) is converted by the next migrate, and keeps its rows.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anEarlierInstallIsConvertedAndKeepsItsRows(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        Vendor vendor = FencingMigrations.vendorOf(db);
        Flyway.configure().dataSource(db).table(FencingMigrations.HISTORY_TABLE)
                .locations(vendor.location().replace("db/fencing", "db/fencing-legacy")).load().migrate();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('kept ', 41)");
            statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('app.accounts:7', 8)");
            statement.execute("INSERT INTO fencing_store (item_key, item_value, token, version) VALUES ('k', 'v', 7, 2)");
            if (vendor == Vendor.MYSQL) {
                assertThatThrownBy(() -> statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('kept', 1)"))
                        .as("the legacy MySQL key pads with spaces: 'kept' = 'kept '").isInstanceOf(SQLException.class);
            }
        }

        assertThat(FencingMigrations.migrate(db).migrationsExecuted).as("the changed script runs again").isEqualTo(1);

        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            assertThat(count(statement, "SELECT token FROM fencing_fence WHERE resource = 'kept '")).isEqualTo(41);
            assertThat(count(statement, "SELECT COUNT(*) FROM fencing_fence WHERE resource = 'kept'")).isZero();
            assertThat(count(statement, "SELECT COUNT(*) FROM fencing_fence WHERE resource = 'app.accounts:7' AND"
                    + " token = 8 AND kind IN ('lock', 'row')")).as("a row entry's name: kept in both namespaces").isEqualTo(2);
            assertThat(count(statement, "SELECT version FROM fencing_store WHERE item_key = 'k'")).isEqualTo(2);
            assertThat(count(statement, "SELECT COUNT(*) FROM fencing_store WHERE item_key = 'k' AND fence_resource IS NULL"))
                    .as("the added lock-name column, empty in the rows written before it").isEqualTo(1);
            if (vendor == Vendor.MYSQL) {
                assertThat(columnType(statement, "fencing_fence", "resource")).isEqualTo("varbinary(1024)");
                assertThat(columnType(statement, "fencing_store", "item_key")).isEqualTo("varbinary(1024)");
                assertThat(columnType(statement, "fencing_token_counter", "updated_at")).isEqualTo("datetime(6)");
                statement.execute("UPDATE fencing_fence SET updated_at = '2040-01-01 00:00:00' WHERE resource = 'kept '");
            }
        }
        assertKeysCompareExactly(db);
        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isZero();
    }

    /**
     * An install from before fencing_fence kept lock fence rows and row guard entries in two
     * namespaces: every row is kept as a lock's fence row, and one named like a row entry
     * ({@code <schema>.<table>:<key>}) also as that row's entry, with its token — the old row was both
     * marks at once, so neither goes back. A build from before the namespaces can no longer write
     * (its insert names no kind), and applying the script again copies nothing: a lock named like a
     * row entry after the conversion stays a lock's fence row only.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anInstallBeforeTheNamespacesKeepsEveryMarkInEachNamespaceItCouldBelongTo(SqlTestServer server)
            throws SQLException {
        DataSource db = server.freshDatabase();
        Vendor vendor = FencingMigrations.vendorOf(db);
        beforeNamespaces(db, vendor);
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('account-7', 41),"
                    + " ('public.accounts:42', 10), ('billing.orders:a,b', 5)");
        }

        assertThat(FencingMigrations.migrate(db).migrationsExecuted).as("the changed script runs again").isEqualTo(1);

        assertThat(marks(db)).containsExactly("lock account-7=41", "lock billing.orders:a,b=5",
                "lock public.accounts:42=10", "row billing.orders:a,b=5", "row public.accounts:42=10");
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('account-8', 1)"))
                    .as("a build from before the namespaces fails instead of writing where this one does not look")
                    .isInstanceOf(SQLException.class);
            statement.execute("INSERT INTO fencing_fence (kind, resource, token) VALUES ('lock', 'public.accounts:77', 99)");
        }
        Flyway.configure().dataSource(db).table("another_history").locations(vendor.location()).baselineOnMigrate(true)
                .baselineVersion("0").load().migrate(); // the same script applied again, as a second Flyway run would
        assertThat(marks(db)).as("nothing copied by the second application").contains("lock public.accounts:77=99")
                .doesNotContain("row public.accounts:77=99").hasSize(6);
        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isZero();
    }

    /**
     * MySQL/MariaDB commit each DDL statement on its own: a conversion cut short after adding the
     * kind column (rows of kind {@code ''}, its default) and after copying some rows is finished by
     * the next run, a repeated copy keeps the greater token, and the default goes last.
     */
    @org.junit.jupiter.api.Test
    void aMySqlConversionCutShortIsFinishedByTheNextRun() throws SQLException {
        DataSource db = TestServers.mariaDb().freshDatabase();
        beforeNamespaces(db, Vendor.MYSQL);
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('account-7', 41), ('app.accounts:42', 10)");
            // the first steps of the script, then the run stops
            statement.execute("ALTER TABLE fencing_fence ADD COLUMN kind VARCHAR(4) CHARACTER SET ascii COLLATE ascii_bin"
                    + " NOT NULL DEFAULT '' FIRST, DROP PRIMARY KEY, ADD PRIMARY KEY (kind, resource)");
            statement.execute("INSERT INTO fencing_fence (kind, resource, token) SELECT 'row', resource, token FROM"
                    + " (SELECT resource, token FROM fencing_fence WHERE kind = '' AND resource LIKE '%.%:%') AS legacy");
            statement.execute("UPDATE fencing_fence SET token = 12 WHERE kind = 'row'"); // a newer mark since
        }
        assertThat(marks(db)).containsExactly(" account-7=41", " app.accounts:42=10", "row app.accounts:42=12");

        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isEqualTo(1);

        assertThat(marks(db)).containsExactly("lock account-7=41", "lock app.accounts:42=10", "row app.accounts:42=12");
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            assertThat(count(statement, "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
                    + " AND TABLE_NAME = 'fencing_fence' AND COLUMN_NAME = 'kind' AND COLUMN_DEFAULT IS NULL"))
                    .as("the default, removed last").isEqualTo(1);
            assertThatThrownBy(() -> statement.execute("INSERT INTO fencing_fence (resource, token) VALUES ('account-8', 1)"))
                    .as("an earlier build's insert").isInstanceOf(SQLException.class);
        }
    }

    private static void beforeNamespaces(DataSource db, Vendor vendor) {
        Flyway.configure().dataSource(db).table(FencingMigrations.HISTORY_TABLE)
                .locations(vendor.location().replace("db/fencing", "db/fencing-before-namespaces")).load().migrate();
    }

    /** Every row of fencing_fence as {@code "<kind> <resource>=<token>"}, sorted. */
    private static List<String> marks(DataSource db) throws SQLException {
        List<String> marks = new java.util.ArrayList<>();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT kind, resource, token FROM fencing_fence")) {
            while (rows.next()) {
                marks.add(rows.getString(1) + " " + rows.getString(2) + "=" + rows.getLong(3));
            }
        }
        marks.sort(null);
        return marks;
    }

    private static void assertKeysCompareExactly(DataSource db) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            for (String table : List.of("fencing_fence", "fencing_token_counter")) {
                for (String key : List.of("a", "A", "a ", "\u00e9", "e\u0301")) {
                    String kind = table.equals("fencing_fence") ? "kind, " : "";
                    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table + " (" + kind
                            + "resource, token) VALUES (" + (kind.isEmpty() ? "" : "'lock', ") + "?, 1)")) {
                        insert.setString(1, key);
                        insert.executeUpdate();
                    }
                }
                assertThat(count(statement, "SELECT COUNT(*) FROM " + table + " WHERE resource IN ('a', 'A', 'a ')"))
                        .as(table).isEqualTo(3);
                assertThat(count(statement, "SELECT COUNT(*) FROM " + table + " WHERE resource = 'a'")).as(table).isEqualTo(1);
            }
            for (String key : List.of("x", "X", "x ")) {
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO fencing_store (item_key,"
                        + " item_value, token, version) VALUES (?, 'v', 1, 1)")) {
                    insert.setString(1, key);
                    insert.executeUpdate();
                }
            }
            assertThat(count(statement, "SELECT COUNT(*) FROM fencing_store WHERE item_key = 'x'")).isEqualTo(1);
            for (String lock : List.of("x", "X", "x ")) {
                try (PreparedStatement bind = connection.prepareStatement("UPDATE fencing_store SET fence_resource = ?"
                        + " WHERE item_key = ?")) {
                    bind.setString(1, lock);
                    bind.setString(2, lock);
                    bind.executeUpdate();
                }
            }
            assertThat(count(statement, "SELECT COUNT(*) FROM fencing_store WHERE fence_resource = 'x'"))
                    .as("lock names compare exactly too").isEqualTo(1);
        }
    }

    private static String columnType(Statement statement, String table, String column) throws SQLException {
        try (ResultSet row = statement.executeQuery("SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE"
                + " TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + table + "' AND COLUMN_NAME = '" + column + "'")) {
            row.next();
            return row.getString(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aDatabaseWithApplicationTablesAndItsOwnHistoryKeepsBoth(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        Flyway app = Flyway.configure().dataSource(db).locations("classpath:db/app").load();
        assertThat(app.migrate().migrationsExecuted).as("the application's V1 table and V2 token column").isEqualTo(2);
        long appHistory = historyRows(db, "flyway_schema_history");

        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isEqualTo(1);
        assertThat(historyRows(db, "flyway_schema_history")).as("application history untouched").isEqualTo(appHistory);
        assertThat(app.migrate().migrationsExecuted).isZero();
        assertThat(app.validateWithResult().validationSuccessful).isTrue();

        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO accounts (id, balance) VALUES (1, 100)");
            assertThat(count(statement, "SELECT fencing_token FROM accounts WHERE id = 1")).as("existing rows get 0").isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theLocationJoinsTheApplicationsOwnFlywayRun(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        Vendor vendor = FencingMigrations.vendorOf(db);
        Flyway app = Flyway.configure().dataSource(db).locations("classpath:db/app", vendor.location()).load();
        assertThat(app.migrate().migrationsExecuted).isEqualTo(3);
        assertThat(tableExists(db, "fencing_fence")).isTrue();
        assertThat(app.migrate().migrationsExecuted).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aTokenColumnIsAddedOnceAndNamedAsAsked(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE invoices (id BIGINT PRIMARY KEY)");
            assertThat(TokenColumns.add(connection, "invoices", "lock_token")).isTrue();
            assertThat(TokenColumns.add(connection, "invoices", "lock_token")).isFalse();
            assertThat(TokenColumns.add(connection, "invoices", "fencing_token")).isTrue();
            statement.execute("INSERT INTO invoices (id) VALUES (1)");
            assertThat(count(statement, "SELECT lock_token + fencing_token FROM invoices")).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void badIdentifiersAndMissingTablesAreRefusedBeforeAnyDdl(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        try (Connection connection = db.getConnection()) {
            assertThatThrownBy(() -> TokenColumns.add(connection, "accounts; DROP TABLE x", "fencing_token"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'accounts; DROP TABLE x'");
            assertThatThrownBy(() -> TokenColumns.add(connection, "invoices", "token-1"))
                    .hasMessageContaining("column must be an unquoted SQL name");
            assertThatThrownBy(() -> TokenColumns.add(connection, "nowhere", "fencing_token"))
                    .hasMessageContaining("table 'nowhere' does not exist");
        }
        assertThatThrownBy(V99__nothing::new).hasMessageContaining("at least one table");
        assertThatThrownBy(V98__bad_column::new).hasMessageContaining("column must be an unquoted SQL name");
    }

    static class V99__nothing extends AddFencingTokenColumns {
        V99__nothing() {
            super(List.of());
        }
    }

    static class V98__bad_column extends AddFencingTokenColumns {
        V98__bad_column() {
            super(List.of("accounts"), "fencing token");
        }
    }

    private static long count(Statement statement, String sql) throws SQLException {
        try (ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    private static long historyRows(DataSource db, String table) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            return count(statement, "SELECT COUNT(*) FROM " + table);
        }
    }

    private static boolean tableExists(DataSource db, String table) throws SQLException {
        try (Connection connection = db.getConnection();
                ResultSet tables = connection.getMetaData().getTables(connection.getCatalog(), null, table, null)) {
            return tables.next();
        }
    }
}
