package dev.fencing.jdbc;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.spi.Refusals;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One fence table under one policy, for {@link JdbcFence} and {@link JdbiFence}: on first use it
 * resolves the table (through that connection's search_path or current database), checks that it
 * compares resources byte for byte and keeps the lock and row guard namespaces apart, and remembers the database's dialect and the table's qualified
 * name (a fence serves one database, and one fence table in it, whatever later connections' search
 * paths find).
 */
final class Fence {

    private final String table;
    private final Policy policy;
    private final FencingListener listener;
    private volatile @Nullable SqlDialect checked;
    /** The table as first resolved, schema-qualified and quoted: every connection then reaches the same one. */
    private volatile @Nullable String resolved;

    Fence(String table, Policy policy, FencingListener listener) {
        this.table = table;
        this.policy = policy;
        this.listener = listener;
    }

    /**
     * Advances the fence row of {@code token}'s resource (the lock namespace) inside the connection's transaction.
     *
     * @throws StaleTokenException if a newer token already passed the fence
     * @throws IllegalStateException if the fence table is missing, does not compare resources exactly, or is from an
     *     install without the namespaces
     */
    void advance(Connection connection, FencingToken token) throws SQLException {
        advance(connection, token, policy);
    }

    /** As {@link #advance} with {@link Policy#MONOTONIC}: the token passes again, a newer one is refused. */
    void confirm(Connection connection, FencingToken token) throws SQLException {
        advance(connection, token, Policy.MONOTONIC);
    }

    private void advance(Connection connection, FencingToken token, Policy policy) throws SQLException {
        SqlDialect dialect = checked;
        String name = resolved;
        if (dialect == null) {
            dialect = SqlDialect.of(connection);
            Catalog.Table found = Catalog.requireExactKey(connection, dialect, table, "resource");
            name = dialect.quote(found.schema()) + "." + dialect.quote(found.name());
            FenceRows.requireNamespaces(found, dialect);
            resolved = name;
            checked = dialect;
        }
        // resolved is written before checked, so a set checked means a set resolved
        try {
            FenceRows.advance(connection, dialect, Objects.requireNonNull(name, "resolved is set before checked"),
                    FenceRows.Kind.LOCK, token.resource(), token, policy);
        } catch (StaleTokenException refused) {
            throw Refusals.reported(listener, refused);
        }
    }

    Policy policy() {
        return policy;
    }

    /** Where this fence reports what it refuses and accepts. */
    FencingListener listener() {
        return listener;
    }
}
