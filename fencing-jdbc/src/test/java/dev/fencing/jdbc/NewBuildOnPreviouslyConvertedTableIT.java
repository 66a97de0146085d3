package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingToken;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * The new build must not run on a half-converted table whose marks it cannot see. (Written by an
 * adversary against 0e4e1d4, where it failed as described below; fencing-jdbc now also requires the
 * final check constraint on MySQL/MariaDB.)
 *
 * <p>The table here was converted by the previous version of the MySQL/MariaDB script (36f7ffb: kind
 * without a default, no CHECK). 0e4e1d4 itself says that is not finished: a session without
 * STRICT_TRANS_TABLES of an earlier build still writes rows of kind {@code ''} there, and the current
 * script's steps 2 to 4 (default '-', check, classification of the '' rows, final check) are what
 * close it. But {@code FenceRows.requireNamespaces} still only asks whether {@code kind} has a default,
 * so fencing-jdbc accepts that table before the current script has run, and the '' rows are marks it
 * does not see: a zombie of the earlier build passes 15 on a lock, and the new build then accepts 12 on
 * the same lock. Running the current script afterwards classifies the '' row as {@code lock
 * account-12=15}, which shows it was a mark of that lock all along.
 */
class NewBuildOnPreviouslyConvertedTableIT {

    private static final String OLD_ENSURE =
            "INSERT INTO fencing_fence (resource, token) VALUES (?, 0) ON DUPLICATE KEY UPDATE resource = resource";
    private static final String OLD_ADVANCE =
            "UPDATE fencing_fence SET token = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE resource = ? AND token < ?";

    /** The earlier build's ensure then advance, on its own connection and transaction: true if it accepted the token. */
    private static boolean oldBuildAdvances(DataSource db, String sqlMode, String lock, long token) throws SQLException {
        try (Connection zombie = db.getConnection()) {
            if (sqlMode != null) {
                try (Statement s = zombie.createStatement()) {
                    s.execute("SET SESSION sql_mode = '" + sqlMode + "'");
                }
            }
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

    /** Before the namespaces (marks at 10), then converted by the script as it was before 0e4e1d4. */
    private static DataSource convertedByThePreviousScript() throws SQLException {
        DataSource db = TestServers.mariaDb().freshDatabase();
        Flyway.configure().dataSource(db).table(FencingMigrations.HISTORY_TABLE)
                .locations("classpath:db/before-namespaces/mysql").load().migrate();
        assertThat(oldBuildAdvances(db, null, "account-7", 10)).isTrue();
        Flyway.configure().dataSource(db).table(FencingMigrations.HISTORY_TABLE)
                .locations("classpath:db/previous-conversion/mysql").load().migrate();
        assertThat(marks(db)).containsExactly("'lock' account-7=10");
        return db;
    }

    @Test
    void theNewBuildRefusesATableThePreviousScriptConverted() throws Exception {
        DataSource db = convertedByThePreviousScript();
        // a zombie of the earlier build in a session without STRICT_TRANS_TABLES: a fresh '' row, at 15
        assertThat(oldBuildAdvances(db, "", "account-12", 15)).as("the earlier build's write at 15").isTrue();
        assertThat(marks(db)).contains("'' account-12=15");

        JdbcFence fence = JdbcFence.create(db);
        Throwable outcome = null;
        try (Connection newer = db.getConnection()) {
            newer.setAutoCommit(false);
            fence.advance(newer, FencingToken.of("account-12", 12));
            newer.commit();
        } catch (SQLException | RuntimeException e) {
            outcome = e;
        }
        List<String> before = marks(db);
        FencingMigrations.migrate(db); // the current script, had it run: the '' row is the lock's mark
        List<String> after = marks(db);

        assertThat(outcome)
                .as("the new build must refuse the table (conversion not finished: a '' row holds account-12 at 15) or"
                        + " refuse 12; it accepted 12 after 15. Marks then: %s; after the current script: %s", before, after)
                .isNotNull();
    }
}
