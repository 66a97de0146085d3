package dev.fencing.migrations;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/** Adds a token column to a table unless it is already there. */
public final class TokenColumns {

    private TokenColumns() {}

    /**
     * Adds {@code column BIGINT NOT NULL DEFAULT 0} to {@code table} on {@code connection}, unless
     * the table already has a column of that name.
     *
     * @return true if the column was added, false if it was already there
     * @throws IllegalArgumentException for a table or column that is not a plain SQL name, or a
     *     table that does not exist
     */
    public static boolean add(Connection connection, String table, String column) throws SQLException {
        Identifiers.requireTable(table);
        Identifiers.requireColumn(column);
        if (!tableExists(connection, table)) {
            throw new IllegalArgumentException("cannot add token column '" + column + "': table '" + table
                    + "' does not exist (create it in an earlier migration)");
        }
        if (hasColumn(connection, table, column)) {
            return false;
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE " + table + " ADD COLUMN " + column + " BIGINT NOT NULL DEFAULT 0");
        }
        return true;
    }

    private static boolean tableExists(Connection connection, String table) throws SQLException {
        return matches(connection, table, null);
    }

    private static boolean hasColumn(Connection connection, String table, String column) throws SQLException {
        return matches(connection, table, column);
    }

    /** Looks the name up as stored: PostgreSQL folds unquoted names to lower case, MySQL keeps them. */
    private static boolean matches(Connection connection, String table, String column) throws SQLException {
        String schema = table.contains(".") ? table.substring(0, table.indexOf('.')) : null;
        String name = table.contains(".") ? table.substring(table.indexOf('.') + 1) : table;
        DatabaseMetaData meta = connection.getMetaData();
        boolean mysql = Vendor.of(connection) == Vendor.MYSQL;
        String catalog = mysql ? (schema != null ? schema : connection.getCatalog()) : null;
        String schemaPattern = mysql ? null : (schema != null ? fold(schema) : connection.getSchema());
        String escape = meta.getSearchStringEscape();
        String tablePattern = escapeLike(mysql ? name : fold(name), escape);
        if (schemaPattern != null) {
            schemaPattern = escapeLike(schemaPattern, escape);
        }
        if (column == null) {
            try (ResultSet tables = meta.getTables(catalog, schemaPattern, tablePattern, null)) {
                return tables.next();
            }
        }
        String columnPattern = escapeLike(mysql ? column : fold(column), escape);
        try (ResultSet columns = meta.getColumns(catalog, schemaPattern, tablePattern, columnPattern)) {
            return columns.next();
        }
    }

    /** Metadata lookups take LIKE patterns, where '_' matches any character. */
    private static String escapeLike(String name, String escape) {
        return escape == null || escape.isEmpty() ? name : name.replace("_", escape + "_").replace("%", escape + "%");
    }

    private static String fold(String identifier) {
        return identifier.toLowerCase(Locale.ROOT);
    }
}
