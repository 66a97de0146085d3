package dev.fencing.migrations;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * Keeps the application's first Flyway run working when the toolkit's tables came first.
 *
 * <p>Flyway refuses to migrate a schema that has tables but no history table of its own ("non-empty
 * schema ... but no schema history table"), and its {@code baselineOnMigrate} then baselines at
 * version 1 and silently skips the application's {@code V1}. So when the toolkit migrates a schema
 * that holds nothing but the toolkit's own objects and has no application history yet, it records
 * a baseline at version 0 in the application's history table: the application's Flyway later finds
 * a history, and applies its {@code V1} and everything after it.
 */
final class ApplicationBaseline {

    static final String DESCRIPTION = "fencing toolkit: schema held only the toolkit tables";

    private static final String OURS = "'fencing_fence', 'fencing_token_counter', 'fencing_store', '"
            + FencingMigrations.HISTORY_TABLE + "'";

    private ApplicationBaseline() {}

    /** Records the baseline in {@code historyTable} if the schema holds only the toolkit's objects and no such table. */
    static void recordIfOnlyOurs(DataSource dataSource, String historyTable) {
        try (Connection connection = dataSource.getConnection()) {
            Vendor vendor = Vendor.of(connection);
            if (Catalog.tableExists(connection, vendor, historyTable) || othersInSchema(connection, vendor) > 0) {
                return;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot inspect the schema before migrating: " + e.getMessage(), e);
        }
        try {
            Flyway.configure().dataSource(dataSource).table(historyTable).baselineVersion("0")
                    .baselineDescription(DESCRIPTION).load().baseline();
        } catch (FlywayException e) {
            if (!historyExists(dataSource, historyTable)) { // else another process baselined at the same moment
                throw e;
            }
        }
    }

    /** Tables, views, sequences, routines and types of the current schema that are not the toolkit's. */
    private static long othersInSchema(Connection connection, Vendor vendor) throws SQLException {
        String sql = vendor == Vendor.POSTGRESQL
                ? "SELECT (SELECT COUNT(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = s.oid"
                        + " AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND c.relname NOT IN (" + OURS + "))"
                        + " + (SELECT COUNT(*) FROM pg_catalog.pg_proc p WHERE p.pronamespace = s.oid)"
                        + " + (SELECT COUNT(*) FROM pg_catalog.pg_type t WHERE t.typnamespace = s.oid"
                        + " AND t.typtype IN ('e', 'd', 'r') )"
                        + " FROM pg_catalog.pg_namespace s WHERE s.nspname = current_schema()"
                : "SELECT (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
                        + " AND TABLE_NAME NOT IN (" + OURS + "))"
                        + " + (SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE())";
        try (PreparedStatement statement = connection.prepareStatement(sql); ResultSet row = statement.executeQuery()) {
            return row.next() ? row.getLong(1) : Long.MAX_VALUE; // no current schema: leave it to Flyway
        }
    }

    private static boolean historyExists(DataSource dataSource, String historyTable) {
        try (Connection connection = dataSource.getConnection()) {
            return Catalog.tableExists(connection, Vendor.of(connection), historyTable);
        } catch (SQLException e) {
            return false;
        }
    }
}
