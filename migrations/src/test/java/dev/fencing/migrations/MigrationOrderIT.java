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
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FencingMigrations#migrate} and the application's own Flyway (V1 creates {@code accounts},
 * V2 adds its token column), in both orders, on a fresh database each.
 */
class MigrationOrderIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(TestServers.postgres(), TestServers.mariaDb());
    }

    private static Flyway app(DataSource db) {
        return Flyway.configure().dataSource(db).locations("classpath:db/app").load();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theApplicationFirstThenTheToolkit(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        assertThat(app(db).migrate().migrationsExecuted).isEqualTo(2);
        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isEqualTo(1);
        assertThat(app(db).migrate().migrationsExecuted).isZero();
        assertAppliedBoth(db);
        assertThat(baselines(db, "flyway_schema_history")).as("the application's history gets no baseline").isZero();
    }

    /**
     * The toolkit first on an empty schema: without its baseline at version 0, the application's
     * default Flyway would refuse the schema as non-empty, and with {@code baselineOnMigrate} skip V1.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theToolkitFirstThenTheApplicationsFirstRunAppliesItsV1(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        FencingMigrations.migrate(db);

        MigrateResult first = app(db).migrate();

        assertThat(first.migrationsExecuted).as("V1 and V2").isEqualTo(2);
        assertAppliedBoth(db);
        assertThat(app(db).validateWithResult().validationSuccessful).isTrue();
        assertThat(FencingMigrations.migrate(db).migrationsExecuted).isZero();
    }

    /** The workaround that used to skip V1 silently now finds a history and skips nothing. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theToolkitFirstThenAnApplicationWithBaselineOnMigrateStillAppliesItsV1(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        FencingMigrations.migrate(db);

        Flyway app = Flyway.configure().dataSource(db).locations("classpath:db/app").baselineOnMigrate(true).load();

        assertThat(app.migrate().migrationsExecuted).isEqualTo(2);
        assertAppliedBoth(db);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anApplicationHistoryTableOfAnotherNameIsNamedToTheToolkit(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        FencingMigrations.migrate(db, "app_history");

        Flyway app = Flyway.configure().dataSource(db).table("app_history").locations("classpath:db/app").load();

        assertThat(app.migrate().migrationsExecuted).isEqualTo(2);
        assertAppliedBoth(db);
        assertThat(tableExists(db, "flyway_schema_history")).isFalse();
    }

    /** An application without Flyway says so; the default Flyway then refuses the schema, loudly. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void anApplicationWithoutFlywayGetsNoHistoryTable(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        FencingMigrations.migrate(db, null);
        assertThat(tableExists(db, "flyway_schema_history")).isFalse();
        assertThatThrownBy(() -> app(db).migrate()).hasMessageContaining("no schema history table");
        assertThatThrownBy(() -> FencingMigrations.migrate(db, "history; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'history; DROP TABLE x'");
    }

    /** A schema with tables of its own (made without Flyway, or to be baselined by it) is left to the application. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aSchemaWithOtherTablesGetsNoBaseline(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE legacy (id BIGINT PRIMARY KEY)");
        }
        FencingMigrations.migrate(db);
        assertThat(tableExists(db, "flyway_schema_history")).isFalse();
    }

    private static void assertAppliedBoth(DataSource db) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO accounts (id, balance) VALUES (1, 100)");
            statement.execute("INSERT INTO fencing_fence (kind, resource, token) VALUES ('lock', 'r', 1)");
            try (ResultSet row = statement.executeQuery("SELECT fencing_token FROM accounts WHERE id = 1")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getLong(1)).isZero();
            }
        }
    }

    private static long baselines(DataSource db, String table) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE type = 'BASELINE'")) {
            row.next();
            return row.getLong(1);
        }
    }

    private static boolean tableExists(DataSource db, String table) throws SQLException {
        try (Connection connection = db.getConnection();
                ResultSet tables = connection.getMetaData().getTables(connection.getCatalog(), null, table, null)) {
            return tables.next();
        }
    }
}
