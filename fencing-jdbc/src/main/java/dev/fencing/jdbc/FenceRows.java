package dev.fencing.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** Advances a fence row: the conditional upsert at the heart of {@link JdbcFence} and {@link JdbiFence}. */
final class FenceRows {

    private FenceRows() {}

    /**
     * Raises {@code table}'s row for {@code resource} to {@code token} if {@code policy} accepts the
     * token against it (creating the row if absent), inside the connection's current transaction;
     * the row stays locked until that transaction ends.
     *
     * @throws StaleTokenException if the row holds a token the policy refuses; the caller must roll back
     */
    static void advance(Connection connection, String table, String resource, FencingToken token, Policy policy)
            throws SQLException {
        SqlDialect dialect = SqlDialect.of(connection);
        try {
            String ensure = dialect.ensureFence(table);
            if (ensure != null) {
                Sql.update(connection, ensure, List.of(resource));
            }
            String advance = dialect.advanceFence(table, Sql.operator(policy));
            List<Object> params = dialect == SqlDialect.POSTGRESQL
                    ? List.of(resource, token.value())
                    : List.of(token.value(), resource, token.value());
            if (Sql.update(connection, advance, params) == 0) {
                long mark = Sql.queryLong(connection, "SELECT token FROM " + table + " WHERE resource = ?",
                        List.of(resource)).orElse(-1);
                throw StaleTokenException.of(resource, token, mark, policy);
            }
        } catch (SQLException e) {
            throw SchemaProblems.check(dialect, e, table, null);
        }
    }

    static String requireResource(String resource) {
        if (resource == null || resource.isBlank() || resource.length() > 256) {
            throw new IllegalArgumentException("fence resource must be 1 to 256 characters, not blank, got '" + resource + "'");
        }
        return resource;
    }
}
