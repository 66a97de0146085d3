package dev.fencing.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The auto-configured {@code JdbcFence}'s view of the application's {@link DataSource}: it refuses
 * a connection while a Spring-managed transaction holds one of this DataSource on the calling
 * thread. {@code JdbcFence.inTransaction} runs and commits its own transaction; inside a Spring
 * transaction that would commit the fence apart from the application's writes, so a newer token
 * could pass while an older token's writes were still to commit (seen: token 5's rows committed
 * after token 6's). {@code JdbcFence.advance(connection, token)} takes the caller's connection and
 * is not affected.
 */
final class RefusingInsideSpringTransactions extends DelegatingDataSource {

    RefusingInsideSpringTransactions(DataSource dataSource) {
        super(dataSource);
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseInsideATransaction();
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        refuseInsideATransaction();
        return super.getConnection(username, password);
    }

    /** Whether a Spring transaction holds a connection of this DataSource or of one it delegates to. */
    private boolean boundToATransaction() {
        // a transaction manager binds the DataSource it was given, after unwrapping a
        // TransactionAwareDataSourceProxy: every DataSource of the delegation chain is checked
        DataSource current = obtainTargetDataSource();
        for (int depth = 0; depth < 16; depth++) {
            if (TransactionSynchronizationManager.hasResource(current)) {
                return true;
            }
            DataSource target = current instanceof DelegatingDataSource delegating ? delegating.getTargetDataSource() : null;
            if (target == null) {
                return false;
            }
            current = target;
        }
        return false;
    }

    private void refuseInsideATransaction() {
        // Spring reports a transaction as active only while synchronization is on: without it
        // (SYNCHRONIZATION_NEVER) a bound connection is the only sign of the transaction
        boolean transaction = TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive();
        if (transaction && boundToATransaction()) {
            throw new IllegalStateException("JdbcFence.inTransaction was called inside a Spring-managed transaction"
                    + " on the same DataSource: it would commit the fence in a transaction of its own, apart from"
                    + " this transaction's writes, so a newer token could pass while these writes were still to"
                    + " commit. Inside @Transactional code call TransactionalFence.advance(token) first (it raises"
                    + " the fence row in this transaction); nothing was written");
        }
    }
}
