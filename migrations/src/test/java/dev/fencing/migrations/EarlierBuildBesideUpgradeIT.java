package dev.fencing.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * An instance of a build from before the namespaces keeps running beside the upgrade (MariaDB). Its
 * fence statements are the old ones verbatim: {@code INSERT (resource, token) VALUES (?, 0) ON
 * DUPLICATE KEY UPDATE resource = resource}, then {@code UPDATE ... SET token = ? WHERE resource = ?
 * AND token < ?}, accepted when one row is counted; neither names a kind. The marks are at 10
 * (written by the old build before the upgrade) and a zombie of the old build presents 7, on a
 * connection of its own, in a strict session and in one whose {@code sql_mode} is empty (common for
 * legacy applications: MariaDB then writes a column's implicit default instead of failing).
 */
class EarlierBuildBesideUpgradeIT {

    private static final String OLD_ENSURE =
            "INSERT INTO fencing_fence (resource, token) VALUES (?, 0) ON DUPLICATE KEY UPDATE resource = resource";
    private static final String OLD_ADVANCE =
            "UPDATE fencing_fence SET token = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE resource = ? AND token < ?";
    private static final String STRICT = null;
    private static final String NOT_STRICT = "";

    /** The old build's advance on its own connection: true if it accepted the token. */
    private static boolean oldBuildAdvances(DataSource db, String sqlMode, String lock, long token) throws SQLException {
        try (Connection zombie = db.getConnection()) {
            if (sqlMode != null) {
                try (Statement s = zombie.createStatement()) {
                    s.execute("SET SESSION sql_mode = '" + sqlMode + "'");
                }
            }
            try (PreparedStatement ensure = zombie.prepareStatement(OLD_ENSURE)) {
                ensure.setString(1, lock);
                ensure.executeUpdate();
            } catch (SQLException refused) {
                return false; // the conversion made the old build fail: fine
            }
            try (PreparedStatement advance = zombie.prepareStatement(OLD_ADVANCE)) {
                advance.setLong(1, token);
                advance.setString(2, lock);
                advance.setLong(3, token);
                return advance.executeUpdate() > 0;
            }
        }
    }

    /** Before the upgrade: two locks and two row entries (one per kind of session) at 10. */
    private static DataSource installBeforeNamespacesWithMarksAt10() throws SQLException {
        DataSource db = TestServers.mariaDb().freshDatabase();
        Flyway.configure().dataSource(db).table(FencingMigrations.HISTORY_TABLE)
                .locations(Vendor.MYSQL.location().replace("db/fencing", "db/fencing-before-namespaces")).load().migrate();
        for (String mark : List.of("account-7", "account-8", "app.accounts:42", "app.accounts:43")) {
            assertThat(oldBuildAdvances(db, STRICT, mark, 10)).as("before the upgrade").isTrue();
            assertThat(oldBuildAdvances(db, STRICT, mark, 7)).as("before the upgrade, 7 after 10").isFalse();
        }
        return db;
    }

    /** The statements of the MySQL/MariaDB script, in order, as Flyway runs them (comments dropped). */
    private static List<String> scriptStatements() throws IOException {
        String script;
        try (InputStream in = EarlierBuildBesideUpgradeIT.class.getClassLoader()
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
                marks.add(rows.getString(1) + " " + rows.getString(2) + "=" + rows.getLong(3));
            }
        }
        return marks;
    }

    /**
     * The conversion is stopped after each of its statements in turn (MySQL/MariaDB commit each DDL
     * statement on its own, so each boundary is a state other sessions see). There the earlier build
     * presents 7 to every mark at 10, strict and not, and writes a lock it never wrote before at 5;
     * then the migration finishes. No 7 may be accepted, every mark must end at least where it was,
     * and a lock the earlier build did write must keep its mark in the lock namespace.
     */
    @Test
    void anEarlierBuildAtAnyPointOfTheConversionCannotPassAnOlderToken() throws Exception {
        List<String> statements = scriptStatements();
        int firstOfKind = 0;
        while (!statements.get(firstOfKind).contains("@fencing_add_kind")) {
            firstOfKind++;
        }
        List<String> failures = new ArrayList<>();
        for (int done = firstOfKind; done <= statements.size(); done++) {
            DataSource db = installBeforeNamespacesWithMarksAt10();
            try (Connection migrator = db.getConnection(); Statement statement = migrator.createStatement()) {
                for (String sql : statements.subList(0, done)) { // one session: the script's @variables
                    statement.execute(sql);
                }
            }
            String where = done == statements.size() ? "after the whole script"
                    : "before '" + statements.get(done).lines().findFirst().orElseThrow() + "'";

            List<String> accepted = new ArrayList<>();
            for (String[] attempt : List.of(new String[] {"account-7", "strict"}, new String[] {"app.accounts:42", "strict"},
                    new String[] {"account-8", "not strict"}, new String[] {"app.accounts:43", "not strict"})) {
                if (oldBuildAdvances(db, attempt[1].equals("strict") ? STRICT : NOT_STRICT, attempt[0], 7)) {
                    accepted.add(attempt[0] + " (" + attempt[1] + ")");
                }
            }
            boolean newLockStrict = oldBuildAdvances(db, STRICT, "account-9", 5);
            boolean newLockNotStrict = oldBuildAdvances(db, NOT_STRICT, "account-10", 5);
            FencingMigrations.migrate(db); // the migration finishes

            List<String> marks = marks(db);
            if (!accepted.isEmpty()) {
                failures.add(where + ": 7 accepted after 10 for " + accepted);
            }
            for (String kept : List.of("lock account-7=10", "lock account-8=10", "lock app.accounts:42=10",
                    "row app.accounts:42=10", "lock app.accounts:43=10", "row app.accounts:43=10")) {
                if (!marks.contains(kept)) {
                    failures.add(where + ": mark " + kept + " not kept, marks " + marks);
                }
            }
            if (newLockStrict && !marks.contains("lock account-9=5")) {
                failures.add(where + ": the strict write of account-9 at 5 was accepted and its mark lost: " + marks);
            }
            if (newLockNotStrict && !marks.contains("lock account-10=5")) {
                failures.add(where + ": the non-strict write of account-10 at 5 was accepted and its mark lost: " + marks);
            }
            if (marks.stream().anyMatch(m -> !m.startsWith("lock ") && !m.startsWith("row "))) {
                failures.add(where + ": a row of no kind is left: " + marks);
            }
        }
        assertThat(failures).as("stopping the conversion at each of its %d steps", statements.size() - firstOfKind + 1)
                .isEmpty();
    }

    /** After the conversion the earlier build cannot write at all, strict or not. */
    @Test
    void anEarlierBuildFailsAfterTheConversionWhateverItsSqlMode() throws Exception {
        DataSource db = installBeforeNamespacesWithMarksAt10();
        FencingMigrations.migrate(db);

        for (String sqlMode : Arrays.asList(STRICT, NOT_STRICT)) {
            assertThat(oldBuildAdvances(db, sqlMode, "account-7", 7)).as("sql_mode %s, 7 after 10", sqlMode).isFalse();
            assertThat(oldBuildAdvances(db, sqlMode, "account-7", 11)).as("sql_mode %s, it cannot write at all", sqlMode)
                    .isFalse();
            assertThat(oldBuildAdvances(db, sqlMode, "account-11", 1)).as("sql_mode %s, nor create a mark", sqlMode)
                    .isFalse();
        }
        assertThat(marks(db)).noneMatch(mark -> mark.contains("account-11"));
    }
}
