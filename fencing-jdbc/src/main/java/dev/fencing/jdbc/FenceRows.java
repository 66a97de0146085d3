package dev.fencing.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;

/** Advances a fence row: the conditional upsert at the heart of {@link JdbcFence}, {@link JdbiFence} and the row guard's fence entries. */
final class FenceRows {

    private FenceRows() {}

    /**
     * Raises {@code table}'s row for {@code resource} to {@code token} if {@code policy} accepts the
     * token against it (creating the row if absent), inside the connection's current transaction;
     * the row stays locked until that transaction ends.
     *
     * @throws StaleTokenException if the row holds a token the policy refuses; the caller must roll back
     */
    static void advance(Connection connection, SqlDialect dialect, String table, String resource, FencingToken token,
            Policy policy) throws SQLException {
        OptionalLong refusedBy = tryAdvance(connection, dialect, table, resource, token.value(), policy);
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
    static OptionalLong tryAdvance(Connection connection, SqlDialect dialect, String table, String resource, long token,
            Policy policy) throws SQLException {
        try {
            String ensure = dialect.ensureFence(table);
            if (ensure != null) {
                // 1: created, or there and counted as matched; 0: there, and the connection counts changed rows
                MatchedRows.requireMatched(Sql.update(connection, ensure, List.of(resource)));
            }
            String advance = dialect.advanceFence(table, Sql.operator(policy));
            List<Object> params = dialect == SqlDialect.POSTGRESQL
                    ? List.of(resource, token)
                    : List.of(token, resource, token);
            if (Sql.update(connection, advance, params) > 0) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(mark(connection, table, resource).orElse(-1));
        } catch (SQLException e) {
            throw SchemaProblems.check(dialect, e, table, null);
        }
    }

    /** The row's token read with a locking read, which sees the newest committed row under every isolation level. */
    static OptionalLong mark(Connection connection, String table, String resource) throws SQLException {
        return Sql.queryLong(connection, "SELECT token FROM " + table + " WHERE resource = ? FOR UPDATE", List.of(resource));
    }

    static String requireResource(String resource) {
        if (resource == null || resource.isBlank() || resource.length() > 256) {
            throw new IllegalArgumentException("fence resource must be 1 to 256 characters, not blank, got '" + resource + "'");
        }
        return resource;
    }
}
