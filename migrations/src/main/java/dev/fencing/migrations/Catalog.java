package dev.fencing.migrations;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Looks tables and columns up the way the database resolves a name in a statement: PostgreSQL
 * through the {@code search_path} ({@code to_regclass}), MySQL/MariaDB in the named or current
 * database, with its {@code lower_case_table_names} rule.
 */
final class Catalog {

    /** A column as the catalog describes it: its type ({@code bigint}, {@code integer}, ...) and nullability. */
    record Column(String type, boolean notNull) {
        boolean isBigint() {
            return type.equals("bigint") || type.equals("bigint unsigned");
        }

        String describe() {
            return type + (notNull ? " NOT NULL" : " NULL");
        }
    }

    private Catalog() {}

    /** Whether {@code table} (an unquoted, optionally schema-qualified name) names a table a statement would find. */
    static boolean tableExists(Connection connection, Vendor vendor, String table) throws SQLException {
        if (vendor == Vendor.POSTGRESQL) {
            try (PreparedStatement statement = connection.prepareStatement("SELECT pg_catalog.to_regclass(?) IS NOT NULL")) {
                statement.setString(1, table);
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    return row.getBoolean(1);
                }
            }
        }
        return mysqlTable(connection, table).isPresent();
    }

    /** The column {@code column} of {@code table}, if the table has it. */
    static Optional<Column> column(Connection connection, Vendor vendor, String table, String column) throws SQLException {
        if (vendor == Vendor.POSTGRESQL) {
            try (PreparedStatement statement = connection.prepareStatement("SELECT pg_catalog.format_type(a.atttypid,"
                    + " a.atttypmod), a.attnotnull FROM pg_catalog.pg_attribute a WHERE a.attrelid ="
                    + " pg_catalog.to_regclass(?) AND a.attname = ? AND a.attnum > 0 AND NOT a.attisdropped")) {
                statement.setString(1, table);
                statement.setString(2, column.toLowerCase(Locale.ROOT)); // an unquoted name folds to lower case
                try (ResultSet row = statement.executeQuery()) {
                    return row.next() ? Optional.of(new Column(row.getString(1), row.getBoolean(2))) : Optional.empty();
                }
            }
        }
        Optional<String[]> resolved = mysqlTable(connection, table);
        if (resolved.isEmpty()) {
            return Optional.empty();
        }
        // column names are case-insensitive in MySQL/MariaDB, as information_schema compares them
        try (PreparedStatement statement = connection.prepareStatement("SELECT COLUMN_TYPE, IS_NULLABLE FROM"
                + " information_schema.COLUMNS WHERE BINARY TABLE_SCHEMA = BINARY ? AND BINARY TABLE_NAME = BINARY ?"
                + " AND COLUMN_NAME = ?")) {
            statement.setString(1, resolved.get()[0]);
            statement.setString(2, resolved.get()[1]);
            statement.setString(3, column);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                String type = row.getString(1).toLowerCase(Locale.ROOT).replaceAll("\\(\\d+\\)", "").trim();
                return Optional.of(new Column(type, "NO".equals(row.getString(2))));
            }
        }
    }

    /**
     * The schema and name a MySQL statement would find for {@code table}: in the named database or
     * the current one; names match exactly, or ignoring case where {@code lower_case_table_names}
     * says the server does.
     */
    private static Optional<String[]> mysqlTable(Connection connection, String table) throws SQLException {
        int dot = table.indexOf('.');
        String schema = dot < 0 ? null : table.substring(0, dot);
        String name = table.substring(dot + 1);
        try (PreparedStatement statement = connection.prepareStatement("SELECT TABLE_SCHEMA, TABLE_NAME,"
                + " @@lower_case_table_names FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE())"
                + " AND TABLE_NAME = ?")) {
            statement.setString(1, schema);
            statement.setString(2, name);
            List<String[]> candidates = new ArrayList<>();
            boolean foldsCase = false;
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    candidates.add(new String[] {rows.getString(1), rows.getString(2)});
                    foldsCase = rows.getInt(3) != 0;
                }
            }
            for (String[] candidate : candidates) {
                if (candidate[1].equals(name) && (schema == null || candidate[0].equals(schema))) {
                    return Optional.of(candidate);
                }
            }
            return foldsCase && candidates.size() == 1 ? Optional.of(candidates.get(0)) : Optional.empty();
        }
    }
}
