package dev.fencing.jdbc;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.spi.Refusals;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.OptionalLong;
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

    /**
     * A door's check inside the connection's transaction: refuses {@code token} if a newer token
     * passed the fence, and writes nothing — under any policy, so that a gate over the same rows as
     * the service's writes never spends a token's strict pass, whatever the policies of the fences
     * the writes go through. The refusal's policy is {@link Policy#MONOTONIC}, the door's rule.
     */
    void admit(Connection connection, FencingToken token) throws SQLException {
        SqlDialect dialect = resolve(connection);
        String name = Objects.requireNonNull(resolved, "resolved is set before checked");
        OptionalLong mark;
        try {
            mark = FenceRows.mark(connection, name, FenceRows.Kind.LOCK, token.resource());
        } catch (SQLException e) {
            throw SchemaProblems.check(dialect, e, name, null);
        }
        if (mark.isPresent() && mark.getAsLong() > token.value()) {
            throw Refusals.reported(listener, StaleTokenException.of(token.resource(), token, mark.getAsLong(),
                    Policy.MONOTONIC));
        }
    }

    private void advance(Connection connection, FencingToken token, Policy policy) throws SQLException {
        SqlDialect dialect = resolve(connection);
        // resolved is written before checked, so a set checked means a set resolved
        try {
            FenceRows.advance(connection, dialect, Objects.requireNonNull(resolved, "resolved is set before checked"),
                    FenceRows.Kind.LOCK, token.resource(), token, policy);
        } catch (StaleTokenException refused) {
            throw Refusals.reported(listener, refused);
        }
    }

    /** Resolves and checks the table now, as the first use would: nothing is read from it or written. */
    void check(Connection connection) throws SQLException {
        resolve(connection);
    }

    /** The dialect, having resolved and checked the table on first use. */
    private SqlDialect resolve(Connection connection) throws SQLException {
        SqlDialect dialect = checked;
        if (dialect == null) {
            dialect = SqlDialect.of(connection);
            Catalog.Table found = Catalog.requireExactKey(connection, dialect, table, "resource");
            FenceRows.requireNamespaces(found, dialect);
            resolved = dialect.quote(found.schema()) + "." + dialect.quote(found.name());
            checked = dialect;
        }
        return dialect;
    }

    Policy policy() {
        return policy;
    }

    /** Where this fence reports what it refuses and accepts. */
    FencingListener listener() {
        return listener;
    }
}
