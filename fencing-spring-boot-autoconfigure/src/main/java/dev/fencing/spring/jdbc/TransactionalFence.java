package dev.fencing.spring.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Raises a lock's fence row inside the current Spring-managed transaction, on that transaction's
 * own connection: the writes your {@code @Transactional} code makes with {@code JdbcTemplate},
 * Spring Data JDBC or JPA/Hibernate then commit together with the fence, or roll back with it.
 *
 * <pre>{@code
 * @Transactional
 * public void debit(Lease lease, long account, long amount) {
 *     fence.advance(lease.token());          // first: refuses a stale token before anything is written
 *     jdbcTemplate.update("UPDATE accounts SET balance = balance - ? WHERE id = ?", amount, account);
 * }
 * }</pre>
 *
 * <p>The guarantee is {@link JdbcFence#advance}'s (a rollback to a savepoint taken before the call
 * releases the row early; the confirmation at commit below covers that): the fence row stays locked until the transaction
 * ends, so a newer holder's fence waits for this transaction and then advances past it, and a
 * zombie's fence after a newer one throws {@link StaleTokenException} (a runtime exception: Spring
 * rolls the whole transaction back, writes made before the call included). Call it before the
 * writes: a stale holder then stops before it does any work.
 *
 * <p>The transaction cannot commit past a newer token even when the refusal does not reach it: each
 * token advanced in a transaction is confirmed once more right before it commits (on the same
 * connection, {@link JdbcFence#confirm}), so a {@link StaleTokenException} caught and ignored, a
 * refusal or a fence inside a {@code NESTED} step rolled back to its savepoint (which also releases
 * the fence row's lock), all end in a {@link StaleTokenException} at commit and a rollback of the
 * whole transaction when a newer token passed meanwhile. This needs Spring's transaction
 * synchronization (on by default); without it the call is refused.
 *
 * <p>Call it in the transaction that makes the writes. A fence raised in another transaction — a
 * {@code REQUIRES_NEW} one while the writing transaction is suspended, for example — commits when
 * that transaction does and releases the row, so a newer holder can pass and commit while the
 * suspended writes are still to commit; the fence cannot see a suspended transaction to refuse it.
 *
 * <p>With JPA the fence is one SQL statement on the transaction's JDBC connection
 * ({@code DataSourceUtils}, which {@code JpaTransactionManager} binds): nothing is flushed before
 * it. The auto-configured bean uses the application's {@link DataSource} and {@link JdbcFence};
 * both must be the ones the transaction manager uses. Thread-safe.
 */
public final class TransactionalFence {

    private final DataSource dataSource;
    private final JdbcFence fence;

    private TransactionalFence(DataSource dataSource, JdbcFence fence) {
        this.dataSource = dataSource;
        this.fence = fence;
    }

    /** A fence that raises {@code fence}'s rows on the transactions Spring runs on {@code dataSource}. */
    public static TransactionalFence create(DataSource dataSource, JdbcFence fence) {
        if (dataSource == null || fence == null) {
            throw new IllegalArgumentException("dataSource and fence must not be null");
        }
        return new TransactionalFence(dataSource, fence);
    }

    /**
     * Advances the fence row of {@code token}'s lock to {@code token} in the current transaction.
     *
     * @throws StaleTokenException if a newer token already passed the fence; let it propagate so
     *     the transaction rolls back
     * @throws IllegalStateException if no Spring-managed transaction is active, or it is read-only:
     *     a fence outside a transaction would commit apart from the writes it guards
     * @throws org.springframework.dao.DataAccessException if the database failed the statement
     */
    public void advance(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        if (!TransactionSynchronizationManager.isSynchronizationActive()
                && TransactionSynchronizationManager.hasResource(dataSource)) {
            // Spring reports a transaction as active only while synchronization is on
            throw new IllegalStateException("TransactionalFence.advance(" + token + ") needs Spring's transaction"
                    + " synchronization, which is off for the current transaction (SYNCHRONIZATION_NEVER): the fence"
                    + " could not be confirmed at commit");
        }
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("TransactionalFence.advance(" + token + ") needs a Spring-managed"
                    + " transaction, and no Spring-managed transaction is active: call it from @Transactional code"
                    + " or a TransactionTemplate (or use JdbcFence.inTransaction outside Spring's transactions)");
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            throw new IllegalStateException("TransactionalFence.advance(" + token + ") needs a read-write transaction:"
                    + " the current Spring transaction is read-only");
        }
        ConfirmAtCommit confirmation = confirmationAtCommit();
        confirmation.advanced(token);
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            fence.advance(connection, token);
        } catch (StaleTokenException refused) {
            // a refusal that is caught and ignored is thrown again at commit (reported once, here)
            confirmation.refused(refused);
            throw refused;
        } catch (SQLException e) {
            throw new SQLExceptionSubclassTranslator().translate("advancing the fence of " + token, null, e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** This fence's confirmation in the current transaction, registered with its first advance. */
    private ConfirmAtCommit confirmationAtCommit() {
        for (TransactionSynchronization registered : TransactionSynchronizationManager.getSynchronizations()) {
            if (registered instanceof ConfirmAtCommit confirmation && confirmation.owner() == this) {
                return confirmation;
            }
        }
        ConfirmAtCommit confirmation = new ConfirmAtCommit(this);
        TransactionSynchronizationManager.registerSynchronization(confirmation);
        return confirmation;
    }

    /**
     * Right before the transaction commits: throws again the first refusal of the transaction, if
     * any, else confirms the highest token advanced for each lock, in the order of the locks' names.
     * A refusal propagates, and Spring rolls the transaction back.
     */
    private static final class ConfirmAtCommit implements TransactionSynchronization {
        private final TransactionalFence owner;
        private final Map<String, FencingToken> highest = new TreeMap<>();
        private @Nullable StaleTokenException refused;

        ConfirmAtCommit(TransactionalFence owner) {
            this.owner = owner;
        }

        TransactionalFence owner() {
            return owner;
        }

        void advanced(FencingToken token) {
            highest.merge(token.resource(), token, (kept, next) -> next.value() > kept.value() ? next : kept);
        }

        void refused(StaleTokenException refusal) {
            if (refused == null) {
                refused = refusal;
            }
        }

        @Override
        public void beforeCommit(boolean readOnly) {
            StaleTokenException first = refused;
            if (first != null) {
                throw first;
            }
            Connection connection = DataSourceUtils.getConnection(owner.dataSource);
            try {
                for (FencingToken token : highest.values()) {
                    owner.fence.confirm(connection, token);
                }
            } catch (SQLException e) {
                throw new SQLExceptionSubclassTranslator().translate("confirming the fence at commit", null, e);
            } finally {
                DataSourceUtils.releaseConnection(connection, owner.dataSource);
            }
        }
    }
}
