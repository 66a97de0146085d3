package dev.fencing.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/**
 * Advances a fence row: the conditional upsert at the heart of {@link JdbcFence}, {@link JdbiFence} and the row guard's
 * fence entries. The fence table keeps two namespaces ({@link Kind}), part of its key: a lock's fence row and a row's
 * entry are two rows even when the lock is named like the entry.
 */
final class FenceRows {

    /** The namespace of a fence table's row, its {@code kind} column. */
    enum Kind {
        /** A lock's fence row, named by the lock: {@link JdbcFence}, {@link JdbiFence}, and every row guard write. */
        LOCK("lock"),
        /** A row guard entry, named {@code <schema>.<table>:<key>}: the mark of a row's fenced delete or insert. */
        ROW("row");

        private final String value;

        Kind(String value) {
            this.value = value;
        }

        /** The column value as an SQL literal (a constant of this class, never caller input). */
        String literal() {
            return "'" + value + "'";
        }
    }

    private FenceRows() {}

    /**
     * Raises {@code table}'s row for {@code resource} in {@code kind} to {@code token} if {@code policy} accepts the
     * token against it (creating the row if absent), inside the connection's current transaction; the row stays locked
     * until that transaction ends.
     *
     * @throws StaleTokenException if the row holds a token the policy refuses; the caller must roll back
     */
    static void advance(Connection connection, SqlDialect dialect, String table, Kind kind, String resource,
            FencingToken token, Policy policy) throws SQLException {
        OptionalLong refusedBy = tryAdvance(connection, dialect, table, kind, resource, token.value(), policy);
        if (refusedBy.isPresent()) {
            throw StaleTokenException.of(resource, token, refusedBy.getAsLong(), policy);
        }
    }

    /**
     * As {@link #advance}, answering instead of throwing.
     *
     * @return empty if the row now holds {@code token}; else the token that refused it, read with a
     *     locking read (the newest committed value, also under REPEATABLE READ)
     */
    static OptionalLong tryAdvance(Connection connection, SqlDialect dialect, String table, Kind kind, String resource,
            long token, Policy policy) throws SQLException {
        try {
            String ensure = dialect.ensureFence(table, kind);
            if (ensure != null) {
                // 1: created, or there and counted as matched; 0: there, and the connection counts changed rows
                MatchedRows.requireMatched(Sql.update(connection, ensure, List.of(resource)));
            }
            String advance = dialect.advanceFence(table, kind, Sql.operator(policy));
            List<Object> params = dialect == SqlDialect.POSTGRESQL
                    ? List.of(resource, token)
                    : List.of(token, resource, token);
            if (Sql.update(connection, advance, params) > 0) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(mark(connection, table, kind, resource).orElse(-1));
        } catch (SQLException e) {
            throw SchemaProblems.check(dialect, e, table, null);
        }
    }

    /** The row's token read with a locking read, which sees the newest committed row under every isolation level. */
    static OptionalLong mark(Connection connection, String table, Kind kind, String resource) throws SQLException {
        return Sql.queryLong(connection, "SELECT token FROM " + table + " WHERE kind = " + kind.literal()
                + " AND resource = ? FOR UPDATE", List.of(resource));
    }

    /**
     * Checks that the fence table {@code table} (as the catalog names it) keeps the two namespaces: it
     * has the {@code kind} column, and the conversion of an install from before them has finished
     * (the migration drops the column's default last; MySQL/MariaDB convert in steps, and a run cut
     * short leaves it). Reads only the catalog: no read of a table, so no snapshot is taken before
     * the fence row is locked.
     *
     * @throws IllegalStateException naming the migration that converts it, before anything is written
     */
    static void requireNamespaces(Catalog.Table table, SqlDialect dialect) {
        String remedy = " Run FencingMigrations.migrate(dataSource) from the 'migrations' module (or your Flyway run with"
                + " Vendor.<yours>.location())";
        Catalog.Column kind = table.columns().get("kind");
        if (kind == null) {
            throw new IllegalStateException("the toolkit's table '" + table.qualifiedName() + "' has no column 'kind': it"
                    + " is from an install where a lock's fence row and the row guard's entries shared one namespace, so"
                    + " a lock named like a row's entry ('<schema>.<table>:<key>') shared that row's mark and a stale"
                    + " token could pass." + remedy + " to convert it; its rows are kept (each as a lock's fence row, and"
                    + " one named like a row entry also as that row's entry, with the same token)");
        }
        if (kind.hasDefault()) {
            throw new IllegalStateException("the conversion of the toolkit's table '" + table.qualifiedName() + "' to"
                    + " separate namespaces for locks and row entries has not finished (column 'kind' still has the"
                    + " default the migration removes last): the migration was cut short." + remedy + " again (after"
                    + " Flyway's repair if its history records the run as failed); it finishes the conversion and keeps"
                    + " every row");
        }
        if (dialect == SqlDialect.MYSQL && table.checks().stream().noneMatch(FenceRows::refusesRowsOfNoKind)) {
            throw new IllegalStateException("the toolkit's table '" + table.qualifiedName() + "' has no enforced check"
                    + " constraint kind IN ('lock', 'row'): an instance of a build from before the namespaces, in a"
                    + " session that is not strict, would write rows of kind '' that this build never reads, and pass a"
                    + " token older than a lock's mark." + remedy + " to add it (it keeps every row; found checks: "
                    + table.checks() + ")");
        }
    }

    /** Whether a check clause, as MySQL or MariaDB prints it, is {@code kind IN ('lock', 'row')}. */
    static boolean refusesRowsOfNoKind(String clause) {
        String bare = clause.toLowerCase(java.util.Locale.ROOT).replaceAll("_[a-z0-9]+'", "'")
                .replaceAll("[`()\\s]", "");
        return bare.equals("kindin'lock','row'") || bare.equals("kindin'row','lock'");
    }

    static String requireResource(String resource) {
        if (resource == null || resource.isBlank() || resource.length() > 256) {
            throw new IllegalArgumentException("fence resource must be 1 to 256 characters, not blank, got '" + resource + "'");
        }
        return resource;
    }
}
