package dev.fencing.jdbc;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Runs existing JDBC code in one transaction behind a fence row: the transaction first advances
 * the token's resource's row of {@code fencing_fence} (kind {@code 'lock'}) with a conditional
 * upsert, then runs the code;
 * a stale token throws {@link StaleTokenException} before the code runs and nothing is written.
 * The code itself needs no token: every write it makes commits only together with the fence.
 *
 * <pre>{@code
 * JdbcFence fence = JdbcFence.create(dataSource);
 * try (Lease lease = locks.acquire("account-7", options)) {
 *     fence.inTransaction(lease.token(), connection -> accountDao.debit(connection, 7, 30));
 * }
 * }</pre>
 *
 * <p>The fence row stays locked from the upsert to the commit, so a zombie waiting on it sees the
 * newer token once it gets the row and fails as stale. Only writes made inside the callback are
 * fenced, and a fence serves one database. Under PostgreSQL's REPEATABLE READ or SERIALIZABLE a
 * zombie gets a serialization failure instead: {@link #inTransaction} runs the fence again, while
 * with {@link #advance} in your own transaction the 40001 is yours to roll back and retry.
 *
 * <p>Needs the {@code fencing_fence} table from the {@code migrations} module. Thread-safe. Why it
 * is safe under each isolation level, the SQL per database and the cost are in {@code docs/sql.md}.
 */
public final class JdbcFence {

    /** The default fence table, created by the migrations module. */
    public static final String DEFAULT_TABLE = "fencing_fence";

    private final DataSource dataSource;
    private final Fence fence;

    private JdbcFence(DataSource dataSource, Fence fence) {
        this.dataSource = dataSource;
        this.fence = fence;
    }

    /** A fence on {@value #DEFAULT_TABLE} under {@link Policy#MONOTONIC}, reporting to no listener. */
    public static JdbcFence create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder over {@code dataSource}: table {@value #DEFAULT_TABLE}, {@link Policy#MONOTONIC}
     * and no listener unless set.
     */
    public static Builder builder(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        return new Builder(dataSource);
    }

    /**
     * Opens a connection, advances the fence to {@code token} and runs {@code work}, all in one
     * transaction, committed when {@code work} returns.
     *
     * @return what {@code work} returned
     * @throws StaleTokenException if a newer token already passed the fence; nothing was written
     * @throws SQLException from the database or from {@code work}; the transaction was rolled back
     */
    public <T> T inTransaction(FencingToken token, SqlFunction<T> work) throws SQLException {
        if (token == null || work == null) {
            throw new IllegalArgumentException("token and work must not be null");
        }
        T result = transaction(token, fence::advance, work);
        fence.listener().onWriteAccepted(token, token.resource());
        return result;
    }

    /**
     * Admits {@code token} at a service's door, in a transaction of its own: refuses it if a newer
     * token passed the fence, and writes nothing, whatever the policy — a token equal to the mark
     * passes (a holder's every request carries the same token), and the mark is left to the
     * service's own fenced writes, so a door never spends a token's {@link Policy#STRICT} pass,
     * even when the service's writes go through another {@code JdbcFence} of another policy over
     * the same table. It turns a holder away once a newer holder's write passed the fence.
     * {@code JdbcTokenGate} calls it.
     *
     * @throws StaleTokenException if a newer token passed the fence (told to the listener; its
     *     policy is {@link Policy#MONOTONIC}, the door's rule)
     * @throws SQLException from the database
     */
    public void admit(FencingToken token) throws SQLException {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        transaction(token, fence::admit, connection -> Boolean.TRUE);
    }

    /**
     * Checks now what the first fenced write would: on one connection, that the fence table exists
     * as this fence names it and has the shape this build needs. An application calls it at start-up
     * so that a database without the toolkit's migrations fails the start, not the first request
     * (the Spring Boot auto-configuration does). Reads only the catalog; writes nothing.
     *
     * @throws IllegalStateException naming the table and the migration that creates or converts it
     * @throws SQLException if the database cannot be reached
     */
    public void checkTable() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            fence.check(connection);
        }
    }

    /** A fence step run first in a transaction: {@link Fence#advance} or {@link Fence#admit}. */
    @FunctionalInterface
    private interface FenceStep {
        void run(Connection connection, FencingToken token) throws SQLException;
    }

    /** Opens a connection and runs {@code first}, then {@code work}, in one transaction committed when {@code work} returns. */
    private <T> T transaction(FencingToken token, FenceStep first, SqlFunction<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            try {
                fenceFirst(connection, token, first);
                T result = work.apply(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                Transactions.rollbackQuietly(connection, e);
                throw e;
            } finally {
                if (autoCommit) {
                    connection.setAutoCommit(true);
                }
            }
        }
    }

    /**
     * The fence is the transaction's first statement, so a serialization failure there (REPEATABLE
     * READ on PostgreSQL, when a newer holder committed while this one waited for the row) is
     * retried in a new transaction, whose snapshot shows the newer token: the caller gets
     * {@link StaleTokenException} with the real mark. Once {@code work} has run, nothing is retried.
     */
    private static void fenceFirst(Connection connection, FencingToken token, FenceStep step) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                step.run(connection, token);
                return;
            } catch (SQLException e) {
                connection.rollback();
                Transactions.retryOrThrow(e, attempt);
            }
        }
    }

    /**
     * Advances the fence inside the caller's own transaction on {@code connection}: call it first,
     * then do the writes, then commit. Auto-commit must be off, or the fence and the writes would
     * commit separately.
     *
     * @throws StaleTokenException if a newer token already passed the fence; roll back
     * @throws IllegalStateException if auto-commit is on, or the fence table is missing
     */
    public void advance(Connection connection, FencingToken token) throws SQLException {
        if (connection == null || token == null) {
            throw new IllegalArgumentException("connection and token must not be null");
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("advance needs a transaction: auto-commit is on, so the fence and the writes"
                    + " after it would commit separately; call connection.setAutoCommit(false) first");
        }
        fence.advance(connection, token);
    }

    /**
     * Confirms, on {@code connection}'s transaction right before it commits, that no newer token
     * passed the fence of {@code token}'s lock: locks the lock's fence row again and raises it to
     * {@code token} if it is lower or gone (as after a rollback to a savepoint that undid an
     * {@link #advance}), whatever the policy — the token was already held to the policy when it
     * was advanced. Spring's {@code TransactionalFence} calls it at every commit, so that a
     * refusal caught and ignored, or a fence undone by a savepoint, cannot let the transaction's
     * writes commit after a newer token's.
     *
     * @throws StaleTokenException if a newer token passed the fence; the transaction must roll back
     * @throws IllegalStateException if {@code connection} is in auto-commit mode
     */
    public void confirm(Connection connection, FencingToken token) throws SQLException {
        if (connection == null || token == null) {
            throw new IllegalArgumentException("connection and token must not be null");
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("confirm needs a transaction: auto-commit is on");
        }
        fence.confirm(connection, token);
    }

    /** The policy the fence applies. */
    public Policy policy() {
        return fence.policy();
    }

    /** Configures a {@link JdbcFence}; every setting but the data source is optional. */
    public static final class Builder {
        private final DataSource dataSource;
        private final FenceSettings settings = new FenceSettings();

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** The fence table (same columns as {@value #DEFAULT_TABLE}; an unquoted, optionally schema-qualified name). */
        public Builder table(String table) {
            settings.table(table);
            return this;
        }

        /** Which tokens pass: {@link Policy#MONOTONIC} (the default) or {@link Policy#STRICT}. */
        public Builder policy(Policy policy) {
            settings.policy(policy);
            return this;
        }

        /**
         * Where every refused token ({@link FencingListener#onStaleWriteRejected}) and every committed
         * {@link #inTransaction} ({@link FencingListener#onWriteAccepted}) is reported; a refusal is
         * also logged at WARN whatever the listener. Default: none.
         */
        public Builder listener(FencingListener listener) {
            settings.listener(listener);
            return this;
        }

        /** The fence. */
        public JdbcFence build() {
            return new JdbcFence(dataSource, settings.fence());
        }
    }
}
