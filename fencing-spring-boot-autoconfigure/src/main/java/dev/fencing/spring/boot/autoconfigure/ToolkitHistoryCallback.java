package dev.fencing.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.flywaydb.core.api.configuration.Configuration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the toolkit's row in the application's Flyway history from stopping a start. The toolkit's
 * script is idempotent and repeatable, so its history rows carry nothing the next run needs:
 * <ul>
 *   <li>a failed application of it (MySQL/MariaDB commit DDL as they go, so Flyway records it as
 *       failed) would make every later start fail with "Detected failed repeatable migration … run
 *       repair": the row is removed, and the next run applies the whole script again;
 *   <li>with {@code fencing.flyway.enabled=false} the script is no longer among the migrations, and
 *       Flyway would fail with "applied migration not resolved locally": its rows are removed (turned
 *       on again, it is applied again, changing nothing on tables in shape).
 * </ul>
 * Runs before Flyway validates or migrates, on the history table Flyway is configured with; only
 * rows of {@value #SCRIPT} without a version are touched.
 */
final class ToolkitHistoryCallback implements Callback {

    /** The toolkit's script, as Flyway records it in its history. */
    static final String SCRIPT = "R__fencing_tables.sql";

    private static final Logger LOG = LoggerFactory.getLogger(ToolkitHistoryCallback.class);

    private final boolean toolkitEnabled;

    ToolkitHistoryCallback(boolean toolkitEnabled) {
        this.toolkitEnabled = toolkitEnabled;
    }

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.BEFORE_VALIDATE || event == Event.BEFORE_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        Connection connection = context.getConnection();
        try {
            String history = historyTable(connection, context.getConfiguration());
            if (history == null) {
                return; // a first run: no history yet
            }
            String toolkitRows = "DELETE FROM " + history + " WHERE script = '" + SCRIPT + "' AND version IS NULL";
            try (Statement statement = connection.createStatement()) {
                int removed = statement.executeUpdate(toolkitEnabled ? toolkitRows + " AND success = false" : toolkitRows);
                if (removed > 0) {
                    LOG.info("Removed {} row(s) of the fencing toolkit's {} from {}: {}", removed, SCRIPT, history,
                            toolkitEnabled ? "a failed application, which the next run repeats in full"
                                    : "its migrations are switched off (fencing.flyway.enabled=false)");
                }
            }
        } catch (SQLException e) {
            throw new FlywayException("cannot tidy the fencing toolkit's rows in Flyway's history: " + e.getMessage(), e);
        }
    }

    /** The history table, quoted and qualified as Flyway configures it, or null if it does not exist yet. */
    private static @Nullable String historyTable(Connection connection, Configuration configuration) throws SQLException {
        String table = configuration.getTable();
        String schema = configuration.getDefaultSchema() != null ? configuration.getDefaultSchema()
                : configuration.getSchemas().length > 0 ? configuration.getSchemas()[0] : null;
        DatabaseMetaData meta = connection.getMetaData();
        boolean mysql = meta.getDatabaseProductName().toLowerCase(java.util.Locale.ROOT).matches(".*(mysql|mariadb).*");
        String catalog = mysql ? (schema != null ? schema : connection.getCatalog()) : null;
        String schemaPattern = mysql ? null : (schema != null ? schema : connection.getSchema());
        try (ResultSet found = meta.getTables(catalog, schemaPattern, table, new String[] {"TABLE"})) {
            if (!found.next()) {
                return null;
            }
        }
        String quote = meta.getIdentifierQuoteString().strip();
        String owner = mysql ? catalog : schemaPattern;
        return (owner == null ? "" : quote + owner + quote + ".") + quote + table + quote;
    }

    @Override
    public String getCallbackName() {
        return "fencing toolkit history";
    }
}
