package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * Runs the guards' statements either in a transaction of their own (the connection was in
 * auto-commit mode) or inside the caller's. Work that owns its transaction, or runs only
 * auto-commit statements, is run again when the database refuses it with a serialization failure
 * or deadlock: nothing of it was committed, and the next try reads the newest rows (and so reports
 * a newer token as stale instead of failing). In the caller's transaction such an error is the
 * caller's to handle: it surfaces unchanged.
 */
final class Transactions {

    /** Rounds of a guard that found its row changed between two of its statements. */
    static final int ATTEMPTS = 3;

    /**
     * Runs of work refused with a serialization failure. Each run takes a new snapshot, but with
     * many writers on one row a run can lose again: PostgreSQL under REPEATABLE READ fails every
     * transaction waiting on the row each time its holder commits. A jittered pause that doubles
     * with each run (up to {@link #MAX_BACKOFF_MILLIS}) spreads them out; all 16 runs wait about
     * half a second at most, in expectation.
     */
    static final int SERIALIZATION_ATTEMPTS = 16;

    /** The longest pause between two runs, in milliseconds. */
    static final int MAX_BACKOFF_MILLIS = 64;

    @FunctionalInterface
    interface Work<T> {
        T run() throws SQLException;
    }

    private Transactions() {}

    /** Runs {@code work} in one transaction: its own if the connection auto-commits, else the caller's. */
    static <T> T inTransaction(Connection connection, Work<T> work) throws SQLException {
        return inTransaction(connection, work, result -> true);
    }

    /**
     * As {@link #inTransaction(Connection, Work)}, but a transaction of its own is rolled back, not
     * committed, when {@code wrote} says the result wrote nothing: the marks it raised on the way
     * (the lock's fence row) then stay as they were, as for a refused write.
     */
    static <T> T inTransaction(Connection connection, Work<T> work, Predicate<? super T> wrote) throws SQLException {
        if (!connection.getAutoCommit()) {
            return work.run();
        }
        connection.setAutoCommit(false);
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    T result = work.run();
                    if (wrote.test(result)) {
                        connection.commit();
                    } else {
                        connection.rollback();
                    }
                    return result;
                } catch (SQLException e) {
                    rollbackQuietly(connection, e);
                    retryOrThrow(e, attempt);
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
                if (!autoCommit) {
                    throw e;
                }
                retryOrThrow(e, attempt);
            }
        }
    }

    /**
     * Returns (after a short jittered pause) if {@code e} is a serialization failure and
     * {@code attempt} was not the last; throws {@code e} otherwise.
     */
    static void retryOrThrow(SQLException e, int attempt) throws SQLException {
        if (attempt >= SERIALIZATION_ATTEMPTS || !SqlDialect.isSerializationFailure(e)) {
            throw e;
        }
        try {
            Thread.sleep(ThreadLocalRandom.current().nextInt(backoffBound(attempt) + 1));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw e;
        }
    }

    /**
     * The upper bound, in milliseconds, of the random pause after run {@code attempt} (from 1):
     * 2, 4, 8 ... up to {@link #MAX_BACKOFF_MILLIS} ("full jitter": the pause is uniform below it).
     */
    static int backoffBound(int attempt) {
        return attempt >= 6 ? MAX_BACKOFF_MILLIS : Math.min(MAX_BACKOFF_MILLIS, 1 << attempt);
    }

    static void rollbackQuietly(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailed) {
            cause.addSuppressed(rollbackFailed);
        }
    }
}
