package dev.fencing.jdbc;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Turns "no such table" and "no such column" into errors that name the table and the migration
 * to run; every other SQL error passes through unchanged.
 */
final class SchemaProblems {

    private SchemaProblems() {}

    /**
     * As {@link #check(SqlDialect, SQLException, String, String)} for a statement that touches
     * both {@code table} and the toolkit's {@code fenceTable}: the error names whichever the
     * database complained about.
     */
    static SQLException check(@Nullable SqlDialect dialect, SQLException e, String table, String tokenColumn,
            String fenceTable) {
        String message = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        String fenceName = fenceTable.substring(fenceTable.indexOf('.') + 1).toLowerCase(java.util.Locale.ROOT);
        if (message.contains(fenceName)) {
            return check(dialect, e, fenceTable, null);
        }
        return check(dialect, e, table, tokenColumn);
    }

    /** The error for a missing table: its name, where it was looked for, and the migration that creates it. */
    static IllegalStateException missingTable(String table, @Nullable String tokenColumn, String where) {
        return new IllegalStateException("table '" + table + "' does not exist (" + where + "). "
                + remedy(table, tokenColumn));
    }

    /**
     * Throws the clear error if {@code e} is a missing table or column; returns {@code e} otherwise,
     * and when the dialect is unknown (the connection could not be asked).
     */
    static SQLException check(@Nullable SqlDialect dialect, SQLException e, String table, @Nullable String tokenColumn) {
        if (dialect == null) {
            return e;
        }
        if (dialect.isUndefinedTable(e)) {
            throw new IllegalStateException("table '" + table + "' does not exist. " + remedy(table, tokenColumn)
                    + " (database said: " + e.getMessage() + ")", e);
        }
        if (dialect.isUndefinedColumn(e)) {
            throw new IllegalStateException("a column of table '" + table + "' is missing"
                    + (tokenColumn == null ? "" : " (the token column is '" + tokenColumn + "')") + ". "
                    + remedy(table, tokenColumn) + " (database said: " + e.getMessage() + ")", e);
        }
        return e;
    }

    static String remedy(String table, @Nullable String tokenColumn) {
        if (tokenColumn == null) {
            return "It is one of the toolkit's tables: run FencingMigrations.migrate(dataSource) from the 'migrations'"
                    + " module, or add Vendor.<yours>.location() to your Flyway locations";
        }
        return "Add the token column with a Flyway migration extending AddFencingTokenColumns (module 'migrations'),"
                + " e.g. super(List.of(\"" + table + "\"), \"" + tokenColumn + "\")";
    }
}
