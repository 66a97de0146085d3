package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs the guards' statements either in a transaction of their own (the connection was in
 * auto-commit mode) or inside the caller's. Work that owns its transaction, or runs only
 * auto-commit statements, is run again when the database refuses it with a serialization failure
 * or deadlock: nothing of it was committed, and the next try reads the newest rows (and so reports
 * a newer token as stale instead of failing). In the caller's transaction such an error is the
 * caller's to handle: it surfaces unchanged.
 */
final class Transactions {

    static final int ATTEMPTS = 3;

    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    private Transactions() {}

    /** Runs {@code work} in one transaction: its own if the connection auto-commits, else the caller's. */
    static <T> T inTransaction(Connection connection, Work<T> work) throws SQLException {
        if (!connection.getAutoCommit()) {
            return work.run();
        }
        connection.setAutoCommit(false);
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    T result = work.run();
                    connection.commit();
                    return result;
                } catch (SQLException e) {
                    rollbackQuietly(connection, e);
                    if (attempt >= ATTEMPTS || !SqlDialect.isSerializationFailure(e)) {
                        throw e;
                    }
                } catch (RuntimeException | Error e) {
                    rollbackQuietly(connection, e);
                    throw e;
                }
            }
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /** Runs {@code work} as it is, again after a serialization failure if the connection auto-commits each statement. */
    static <T> T statements(Connection connection, Work<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        for (int attempt = 1; ; attempt++) {
            try {
                return work.run();
            } catch (SQLException e) {
                if (!autoCommit || attempt >= ATTEMPTS || !SqlDialect.isSerializationFailure(e)) {
                    throw e;
                }
            }
        }
    }

    static void rollbackQuietly(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailed) {
            cause.addSuppressed(rollbackFailed);
        }
    }
}
