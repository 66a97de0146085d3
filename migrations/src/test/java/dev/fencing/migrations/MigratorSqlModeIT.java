package dev.fencing.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The sql_mode of the session that runs the script (not the earlier build's) must not rewrite the
 * check that is meant to stop the earlier build. (Written by an adversary against 0e4e1d4, where it
 * failed as described below; the script now runs under a sql_mode of its own.)
 *
 * <p>MariaDB's {@code EMPTY_STRING_IS_NULL} (Oracle compatibility; it may be the server's global
 * sql_mode or a pool's session setting) turns the literal {@code ''} into NULL when a statement is
 * parsed. Step 1 then fails ({@code NOT NULL DEFAULT NULL}), so on a fresh install nothing happens; but
 * on a table where kind is already there (a run cut short after step 1, here, or a table the previous
 * script converted), step 2 installs {@code CHECK (kind IN (NULL, 'lock', 'row'))}: {@code '-' IN (NULL,
 * ...)} is NULL, and a CHECK passes on NULL. The default '-' is in place but refused by nothing, so an
 * earlier build, in its default strict session, inserts a '-' row and passes 7 after 10. Step 3 looks
 * for {@code kind = NULL} and classifies nothing, step 4 fails on the '' rows; and a later run in an
 * ordinary session skips step 2 (the check is there by name), classifies only the '' rows, and fails
 * at step 4 on the '-' rows, every time: the earlier build keeps passing older tokens.
 */
class MigratorSqlModeIT {

    private static final String OLD_ENSURE =
            "INSERT INTO fencing_fence (resource, token) VALUES (?, 0) ON DUPLICATE KEY UPDATE resource = resource";
    private static final String OLD_ADVANCE =
            "UPDATE fencing_fence SET token = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE resource = ? AND token < ?";

    private static boolean oldBuildAdvances(DataSource db, String lock, long token) throws SQLException {
        try (Connection zombie = db.getConnection()) {
            zombie.setAutoCommit(false);
            try {
                try (PreparedStatement ensure = zombie.prepareStatement(OLD_ENSURE)) {
                    ensure.setString(1, lock);
                    ensure.executeUpdate();
                }
                try (PreparedStatement advance = zombie.prepareStatement(OLD_ADVANCE)) {
                    advance.setLong(1, token);
                    advance.setString(2, lock);
                    advance.setLong(3, token);
                    boolean accepted = advance.executeUpdate() > 0;
                    zombie.commit();
                    return accepted;
                }
            } catch (SQLException refused) {
                zombie.rollback();
                return false;
            }
        }
    }

    private static List<String> scriptStatements() throws IOException {
        String script;
        try (InputStream in = MigratorSqlModeIT.class.getClassLoader()
                .getResourceAsStream("db/fencing/mysql/R__fencing_tables.sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> statements = new ArrayList<>();
        for (String sql : script.split(";\\s*\\n")) {
            String body = sql.lines().filter(l -> !l.trim().startsWith("--")).collect(Collectors.joining("\n")).trim();
            if (!body.isEmpty()) {
                statements.add(body);
            }
        }
        return statements;
    }

    private static List<String> marks(DataSource db) throws SQLException {
        List<String> marks = new ArrayList<>();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT kind, CAST(resource AS CHAR), token FROM fencing_fence ORDER BY kind, resource")) {
            while (rows.next()) {
                marks.add("'" + rows.getString(1) + "' " + rows.getString(2) + "=" + rows.getLong(3));
            }
        }
        return marks;
    }

    /** {@code db} whose every connection first runs {@code SET SESSION sql_mode = <sqlMode>}. */
    private static DataSource withSqlMode(DataSource db, String sqlMode) {
        return (DataSource) Proxy.newProxyInstance(MigratorSqlModeIT.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(db, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (result instanceof Connection connection) {
                        try (Statement s = connection.createStatement()) {
                            s.execute("SET SESSION sql_mode = '" + sqlMode + "'");
                        }
                    }
                    return result;
                });
    }

    @Test
    void aRunUnderEmptyStringIsNullStillStopsTheEarlierBuild() throws Exception {
        DataSource db = TestServers.mariaDb().freshDatabase();
        Flyway.configure().dataSource(db).table(FencingMigrations.HISTORY_TABLE)
                .locations(Vendor.MYSQL.location().replace("db/fencing", "db/fencing-before-namespaces")).load().migrate();
        assertThat(oldBuildAdvances(db, "account-7", 10)).isTrue();

        // a run cut short after step 1 (kind added, default '')
        List<String> statements = scriptStatements();
        int step2 = 0;
        while (!statements.get(step2).startsWith("SET @fencing_close_kind")) {
            step2++;
        }
        try (Connection migrator = db.getConnection(); Statement statement = migrator.createStatement()) {
            for (String sql : statements.subList(0, step2)) {
                statement.execute(sql);
            }
        }

        // the next run, from a data source whose sessions have EMPTY_STRING_IS_NULL
        String emptyIsNullRun = "finished";
        try {
            FencingMigrations.migrate(withSqlMode(db, "STRICT_TRANS_TABLES,EMPTY_STRING_IS_NULL"));
        } catch (RuntimeException e) {
            emptyIsNullRun = "failed: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        }
        boolean passedAfterThatRun = oldBuildAdvances(db, "account-7", 7);
        List<String> marksAfterThatRun = marks(db);

        // and a run in an ordinary session (after Flyway's repair, under another history table)
        String ordinaryRun = "finished";
        try {
            Flyway.configure().dataSource(db).table("other_application_history").baselineOnMigrate(true)
                    .baselineVersion("0").locations(Vendor.MYSQL.location()).load().migrate();
        } catch (RuntimeException e) {
            ordinaryRun = "failed: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        }
        boolean passedAfterOrdinaryRun = oldBuildAdvances(db, "account-7", 8);

        List<String> failures = new ArrayList<>();
        if (passedAfterThatRun) {
            failures.add("after the EMPTY_STRING_IS_NULL run (" + emptyIsNullRun + ") the earlier build (strict session)"
                    + " passed 7 after 10; marks " + marksAfterThatRun);
        }
        if (passedAfterOrdinaryRun) {
            failures.add("after the next ordinary run (" + ordinaryRun + ") it passed 8 after 10; marks " + marks(db));
        }
        assertThat(failures).isEmpty();
    }
}
