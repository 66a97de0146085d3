package dev.fencing.jdbc;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.sql.SQLException;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.HandleConsumer;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.extension.ExtensionCallback;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * {@link JdbcFence} for Jdbi: runs a {@link Handle} callback or a SqlObject DAO in one transaction
 * behind the fence row, so existing DAOs are fenced without changing them.
 *
 * <pre>{@code
 * JdbiFence fence = JdbiFence.create(jdbi);
 * try (Lease lease = locks.acquire("account-7", options)) {
 *     fence.withExtension(lease.token(), AccountDao.class, dao -> dao.debit(7, 30));
 * }
 * }</pre>
 *
 * <p>A stale token throws {@link StaleTokenException} before the callback runs; Jdbi rolls the
 * transaction back. See {@link JdbcFence} for why the fence is safe under concurrency. Needs
 * {@code jdbi3-core} (and {@code jdbi3-sqlobject} for DAOs) on the class path. Thread-safe.
 */
public final class JdbiFence {

    private final Jdbi jdbi;
    private final String table;
    private final Fence fence;

    private JdbiFence(Jdbi jdbi, String table, Fence fence) {
        this.jdbi = jdbi;
        this.table = table;
        this.fence = fence;
    }

    /** A fence on {@value JdbcFence#DEFAULT_TABLE} under {@link Policy#MONOTONIC}, reporting to no listener. */
    public static JdbiFence create(Jdbi jdbi) {
        return builder(jdbi).build();
    }

    /**
     * A builder over {@code jdbi}: table {@value JdbcFence#DEFAULT_TABLE}, {@link Policy#MONOTONIC}
     * and no listener unless set.
     */
    public static Builder builder(Jdbi jdbi) {
        if (jdbi == null) {
            throw new IllegalArgumentException("jdbi must not be null");
        }
        return new Builder(jdbi);
    }

    /**
     * Advances the fence to {@code token}, then runs {@code callback}, in one transaction.
     *
     * @throws StaleTokenException if a newer token already passed the fence; nothing was written
     */
    public <R, X extends Exception> R inTransaction(FencingToken token, HandleCallback<R, X> callback) throws X {
        requireNonNull(token, callback);
        for (int attempt = 1; ; attempt++) {
            boolean[] advanced = {false};
            try {
                R result = jdbi.inTransaction(handle -> {
                    advance(handle, token);
                    advanced[0] = true;
                    return callback.withHandle(handle);
                });
                fence.listener().onWriteAccepted(token, token.resource());
                return result;
            } catch (UnableToExecuteStatementException e) {
                // as JdbcFence: a serialization failure of the first statement is retried in a new
                // transaction, whose snapshot shows the newer token; after the callback ran, never
                if (advanced[0] || !(e.getCause() instanceof SQLException sql)) {
                    throw e;
                }
                try {
                    Transactions.retryOrThrow(sql, attempt);
                } catch (SQLException notRetried) {
                    throw e;
                }
            }
        }
    }

    /** {@link #inTransaction} for a callback that returns nothing. */
    public <X extends Exception> void useTransaction(FencingToken token, HandleConsumer<X> callback) throws X {
        requireNonNull(token, callback);
        inTransaction(token, handle -> {
            callback.useHandle(handle);
            return null;
        });
    }

    /**
     * Attaches the SqlObject (or other extension) {@code type} to a fenced transaction and runs
     * {@code callback} with it: every DAO write inside commits only together with the fence.
     */
    public <R, E, X extends Exception> R withExtension(FencingToken token, Class<E> type,
            ExtensionCallback<R, E, X> callback) throws X {
        requireNonNull(token, callback);
        if (type == null) {
            throw new IllegalArgumentException("extension type must not be null");
        }
        return inTransaction(token, handle -> callback.withExtension(handle.attach(type)));
    }

    /**
     * Advances the fence inside {@code handle}'s open transaction (call it first, then write).
     *
     * @throws IllegalStateException if the handle is not in a transaction
     * @throws StaleTokenException if a newer token already passed the fence; roll back
     */
    public void advance(Handle handle, FencingToken token) {
        if (handle == null || token == null) {
            throw new IllegalArgumentException("handle and token must not be null");
        }
        if (!handle.isInTransaction()) {
            throw new IllegalStateException("advance needs a transaction: call it inside jdbi.inTransaction(...) or"
                    + " handle.begin(), so the fence and the writes commit together");
        }
        try {
            fence.advance(handle.getConnection(), token);
        } catch (SQLException e) {
            throw new UnableToExecuteStatementException("advancing fence row '" + token.resource() + "' in " + table
                    + " failed: " + e.getMessage(), e, null);
        }
    }

    /**
     * Checks now what the first fenced write would: on one handle, that the fence table exists as
     * this fence names it and has the shape this build needs (see {@link JdbcFence#checkTable}).
     * Reads only the catalog; writes nothing.
     *
     * @throws IllegalStateException naming the table and the migration that creates or converts it
     */
    public void checkTable() {
        jdbi.useHandle(handle -> {
            try {
                fence.check(handle.getConnection());
            } catch (SQLException e) {
                throw new UnableToExecuteStatementException("checking the fence table " + table + " failed: "
                        + e.getMessage(), e, null);
            }
        });
    }

    private static void requireNonNull(FencingToken token, Object callback) {
        if (token == null || callback == null) {
            throw new IllegalArgumentException("token and callback must not be null");
        }
    }

    /** Configures a {@link JdbiFence}; every setting but the Jdbi is optional. */
    public static final class Builder {
        private final Jdbi jdbi;
        private final FenceSettings settings = new FenceSettings();

        private Builder(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        /** The fence table (same columns as {@value JdbcFence#DEFAULT_TABLE}). */
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
         * transaction ({@link FencingListener#onWriteAccepted}) is reported; a refusal is also logged
         * at WARN whatever the listener. Default: none.
         */
        public Builder listener(FencingListener listener) {
            settings.listener(listener);
            return this;
        }

        /** The fence. */
        public JdbiFence build() {
            return new JdbiFence(jdbi, settings.table(), settings.fence());
        }
    }
}
