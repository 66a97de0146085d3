package dev.fencing.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.SqlTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Applying the toolkit's tables logs no Flyway warning on a fresh database. On PostgreSQL, neither
 * when the script is applied again over existing tables (a new toolkit version, or the starter
 * switched off and on), where "already exists, skipping" notices would otherwise reach the log as
 * WARN lines that operators learn to ignore. MySQL/MariaDB still send their "already exists" note
 * then: turning notes off takes {@code sql_notes} on MySQL but {@code note_verbosity} on MariaDB
 * 11.4 (which warns that {@code sql_notes} is deprecated) and neither on MariaDB before 10.6.16.
 */
class NoWarningsIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(TestServers.postgres(), TestServers.mariaDb());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aFreshDatabaseAndAReapplicationLogNoWarning(SqlTestServer server) throws SQLException {
        DataSource db = server.freshDatabase();
        assertThat(warningsOf(() -> FencingMigrations.migrate(db))).as("on a fresh database").isEmpty();
        if (FencingMigrations.vendorOf(db) != Vendor.POSTGRESQL) {
            return;
        }
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("DELETE FROM " + FencingMigrations.HISTORY_TABLE + " WHERE version IS NULL");
        }
        assertThat(warningsOf(() -> assertThat(FencingMigrations.migrate(db).migrationsExecuted).isEqualTo(1)))
                .as("applied again over its own tables").isEmpty();
    }

    /** The WARN lines Flyway logs (through SLF4J to standard error) while {@code run} runs. */
    private static List<String> warningsOf(Runnable run) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        original.print(log);
        return log.lines().filter(line -> line.contains(" WARN ") && line.contains("flywaydb")).toList();
    }
}
