package dev.fencing.cli.backends;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import javax.sql.DataSource;

/** Whether a table of the toolkit is there, found the way the toolkit's own statements find it. */
final class SqlTables {

    /** Undefined table: PostgreSQL 42P01, MySQL/MariaDB 42S02. */
    private static final Set<String> UNDEFINED_TABLE = Set.of("42P01", "42S02");

    private SqlTables() {}

    /**
     * Reads no row and writes nothing: an empty {@code SELECT} resolves the name through the
     * session's search path as the stores do, so the database decides, not a catalog query of ours.
     *
     * @param table one of the toolkit's own table names (a constant, never user input)
     */
    static boolean exists(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            return true;
        } catch (SQLException e) {
            if (UNDEFINED_TABLE.contains(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }
}
