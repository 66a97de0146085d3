package dev.fencing.migrations;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/** Adds a token column to a table unless it is already there. */
public final class TokenColumns {

    private TokenColumns() {}

    /**
     * Adds {@code column BIGINT NOT NULL DEFAULT 0} to {@code table} on {@code connection}, unless
     * the table already has it. The table is looked up as a statement would find it: through the
     * {@code search_path} on PostgreSQL, in the named or current database on MySQL/MariaDB.
     *
     * @return true if the column was added, false if it was already there as {@code BIGINT NOT NULL}
     * @throws IllegalArgumentException for a table or column that is not a plain SQL name, or a
     *     table that does not exist
     * @throws IllegalStateException if the table has a column of that name of another type or
     *     nullable: tokens compared as text or as 32-bit numbers, or missing, would not fence
     */
    public static boolean add(Connection connection, String table, String column) throws SQLException {
        Identifiers.requireTable(table);
        Identifiers.requireColumn(column);
        Vendor vendor = Vendor.of(connection);
        if (!Catalog.tableExists(connection, vendor, table)) {
            throw new IllegalArgumentException("cannot add token column '" + column + "': table '" + table
                    + "' does not exist (create it in an earlier migration)");
        }
        Optional<Catalog.Column> existing = Catalog.column(connection, vendor, table, column);
        if (existing.isPresent()) {
            if (existing.get().isBigint() && existing.get().notNull()) {
                return false;
            }
            throw new IllegalStateException("table '" + table + "' already has a column '" + column + "' of type "
                    + existing.get().describe() + ", but a token column must be BIGINT NOT NULL (tokens are 64-bit"
                    + " numbers, and a row without one cannot be fenced). Change it in a migration of your own, e.g."
                    + " UPDATE " + table + " SET " + column + " = 0 WHERE " + column + " IS NULL, then "
                    + (vendor == Vendor.POSTGRESQL
                            ? "ALTER TABLE " + table + " ALTER COLUMN " + column + " TYPE BIGINT, ALTER COLUMN " + column
                                    + " SET NOT NULL, ALTER COLUMN " + column + " SET DEFAULT 0"
                            : "ALTER TABLE " + table + " MODIFY " + column + " BIGINT NOT NULL DEFAULT 0")
                    + "; or name another token column");
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE " + table + " ADD COLUMN " + column + " BIGINT NOT NULL DEFAULT 0");
        }
        return true;
    }
}
