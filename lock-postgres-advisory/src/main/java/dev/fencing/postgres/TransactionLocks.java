package dev.fencing.postgres;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Advisory locks scoped to the caller's own transaction ({@code pg_advisory_xact_lock}), with a
 * token from the counter table taken in the same statement. The lock is released by the
 * transaction's commit or rollback; nothing to release by hand. Works behind PgBouncer in
 * transaction pooling mode, where session locks leak.
 *
 * <pre>{@code
 * jdbi.useTransaction(handle -> {
 *     FencingToken token = TransactionLocks.create().lock(handle.getConnection(), "account-7");
 *     JdbiFence.create(jdbi).advance(handle, token);          // lock, token and fenced writes:
 *     handle.attach(AccountDao.class).debit(7, 30);            // one transaction
 * });
 * }</pre>
 *
 * <p>The counter increment rolls back with the transaction, so use the token only for writes in
 * the same transaction (the fence row or row guard of {@code fencing-jdbc} in the same database),
 * never for a store outside it; after a {@code ROLLBACK TO SAVEPOINT} taken before the lock the
 * transaction no longer holds the lock. Needs READ COMMITTED: a transaction at REPEATABLE READ or
 * SERIALIZABLE is refused with {@link IllegalStateException} before anything is locked or counted.
 *
 * <p>Thread-safe; immutable. Durability ({@code synchronous_commit}), savepoints and isolation are
 * in {@code docs/postgres.md}.
 */
public final class TransactionLocks {

    private final String lock;
    private final String tryLock;

    private TransactionLocks(String counterTable) {
        this.lock = CounterSql.transactionLock(counterTable);
        this.tryLock = CounterSql.transactionTryLock(counterTable);
    }

    /** Locks counting tokens in {@code fencing_token_counter}. */
    public static TransactionLocks create() {
        return new TransactionLocks("fencing_token_counter");
    }

    /** Locks counting tokens in {@code counterTable} (the columns of {@code fencing_token_counter}). */
    public static TransactionLocks create(String counterTable) {
        return new TransactionLocks(CounterSql.requireTable(counterTable));
    }

    /**
     * Waits for the lock on {@code resource} (as long as the transaction's {@code lock_timeout}
     * allows) and returns a new token, in one statement.
     *
     * @throws IllegalStateException if {@code connection} is in auto-commit mode, or its transaction
     *     runs at REPEATABLE READ or SERIALIZABLE (nothing is locked then)
     */
    public FencingToken lock(Connection connection, String resource) throws SQLException {
        requireTransaction(connection, resource);
        return FencingToken.of(resource, run(connection, lock, resource).orElseThrow(
                () -> new IllegalStateException("the counter upsert returned no token")));
    }

    /**
     * {@link #lock(Connection, String)} waiting at most {@code timeout} ({@code SET LOCAL
     * lock_timeout}, one more statement).
     *
     * @throws LockUnavailableException if the timeout passed; the transaction is then aborted and must be rolled back
     */
    public FencingToken lock(Connection connection, String resource, Duration timeout) throws SQLException {
        requireTransaction(connection, resource);
        Checks.requireBetween("timeout", timeout, Duration.ofMillis(1), Duration.ofDays(1));
        try (PreparedStatement statement = connection.prepareStatement("SELECT set_config('lock_timeout', ?, true)")) {
            statement.setString(1, Long.toString(timeout.toMillis()));
            statement.execute();
        }
        try {
            return lock(connection, resource);
        } catch (SQLException e) {
            if ("55P03".equals(e.getSQLState())) {
                throw LockUnavailableException.timedOut(resource, timeout);
            }
            throw e;
        }
    }

    /**
     * One try: a new token if the lock was free, empty if another transaction or session holds it.
     *
     * @throws IllegalStateException as {@link #lock(Connection, String)}
     */
    public Optional<FencingToken> tryLock(Connection connection, String resource) throws SQLException {
        requireTransaction(connection, resource);
        return run(connection, tryLock, resource).map(token -> FencingToken.of(resource, token));
    }

    private static Optional<Long> run(Connection connection, String sql, String resource) throws SQLException {
        String isolation;
        Optional<Long> token;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, AdvisoryKeys.of(resource));
            statement.setString(2, resource);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                isolation = row.getString(1);
                long value = row.getLong(2);
                token = row.wasNull() ? Optional.empty() : Optional.of(value);
            }
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                throw new IllegalStateException("the token counter table does not exist: run"
                        + " FencingMigrations.migrate(dataSource) from the 'migrations' module", e);
            }
            throw e;
        }
        if (!isolation.equals("read committed") && !isolation.equals("read uncommitted")) {
            throw new IllegalStateException("TransactionLocks needs a READ COMMITTED transaction, this one is "
                    + isolation.toUpperCase(java.util.Locale.ROOT) + ": its snapshot is taken before the lock is"
                    + " granted, so a contended lock would fail with a serialization error (40001) and reads under"
                    + " the lock would see data from before the previous holder's commit. Nothing was locked or"
                    + " counted. Start the transaction at READ COMMITTED"
                    + " (connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED)), or hold a"
                    + " PostgresAdvisoryLockProvider session lock around a transaction of any level");
        }
        return token;
    }

    private static void requireTransaction(Connection connection, String resource) throws SQLException {
        Checks.requireNonNull("connection", connection);
        Checks.requireName("resource", resource);
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("a transaction-scoped lock needs a transaction: auto-commit is on, so the lock"
                    + " would end with this very statement; call connection.setAutoCommit(false) first");
        }
    }
}
