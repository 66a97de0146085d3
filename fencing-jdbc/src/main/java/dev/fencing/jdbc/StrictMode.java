package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * MySQL/MariaDB without strict mode ({@code sql_mode} lacking {@code STRICT_TRANS_TABLES} and
 * {@code STRICT_ALL_TABLES}) store what they can instead of refusing a value: an out-of-range
 * integer is clamped, a long string cut, a character the column's charset lacks replaced by
 * {@code '?'}. A key inserted so becomes another key's row, under a fence entry named after the key
 * as given. The row guard therefore refuses to insert rows on such a connection. The setting is
 * per session and may change at any time, so it is read right before each insert.
 */
final class StrictMode {

    private StrictMode() {}

    /**
     * Reads the session's sql_mode.
     *
     * @throws IllegalStateException if the session's sql_mode is not strict, naming the setting to change
     */
    static void require(Connection connection, String table) throws SQLException {
        String mode;
        try (PreparedStatement statement = Sql.prepare(connection, "SELECT @@SESSION.sql_mode", List.of());
                ResultSet rows = statement.executeQuery()) {
            mode = rows.next() ? String.valueOf(rows.getString(1)) : "";
        }
        String upper = mode.toUpperCase(Locale.ROOT);
        if (!upper.contains("STRICT_TRANS_TABLES") && !upper.contains("STRICT_ALL_TABLES")) {
            throw new IllegalStateException("this MySQL/MariaDB connection runs without strict mode (sql_mode='" + mode
                    + "'), so an INSERT into " + table + " would store a key it cannot hold as another key (300 into"
                    + " TINYINT as 127, a long string cut, an unknown character as '?'): a row under another row's"
                    + " fence entry. Nothing was inserted. Add STRICT_TRANS_TABLES to the session's sql_mode (the"
                    + " servers' default; e.g. sessionVariables=sql_mode='STRICT_TRANS_TABLES,...' in the JDBC URL)");
        }
    }
}
