package dev.fencing.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * One fence table under one policy, for {@link JdbcFence} and {@link JdbiFence}: on first use it
 * checks that the table compares resources byte for byte, and remembers the database's dialect
 * (a fence serves one database).
 */
final class Fence {

    private final String table;
    private final Policy policy;
    private volatile SqlDialect checked;

    Fence(String table, Policy policy) {
        this.table = table;
        this.policy = policy;
    }

    /**
     * Advances the fence row of {@code token}'s resource inside the connection's transaction.
     *
     * @throws StaleTokenException if a newer token already passed the fence
     * @throws IllegalStateException if the fence table is missing or does not compare resources exactly
     */
    void advance(Connection connection, FencingToken token) throws SQLException {
        SqlDialect dialect = checked;
        if (dialect == null) {
            dialect = SqlDialect.of(connection);
            Catalog.requireExactKey(connection, dialect, table, "resource");
            checked = dialect;
        }
        FenceRows.advance(connection, dialect, table, token.resource(), token, policy);
    }

    Policy policy() {
        return policy;
    }
}
