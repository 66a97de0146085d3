package dev.fencing.jdbc;

import dev.fencing.core.spi.FailedWrite;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The SQL dialects the JDBC stores speak. Everything vendor-specific lives here: the fence-row
 * upsert and the reading of error codes.
 */
public enum SqlDialect {

    /** PostgreSQL 12 or newer. */
    POSTGRESQL {
        @Override
        String advanceFence(String table, FenceRows.Kind kind, String operator) {
            // one statement: insert, or update only while the stored token passes the policy;
            // under READ COMMITTED a waiter on the row lock re-checks the WHERE on the newest row
            return "INSERT INTO " + table + " (kind, resource, token, updated_at) VALUES (" + kind.literal()
                    + ", ?, ?, CURRENT_TIMESTAMP) ON CONFLICT (kind, resource) DO UPDATE SET token = EXCLUDED.token,"
                    + " updated_at = CURRENT_TIMESTAMP WHERE " + table + ".token " + operator + " EXCLUDED.token";
        }

        @Override
        @Nullable String ensureFence(String table, FenceRows.Kind kind) {
            return null;
        }

        @Override
        boolean isUndefinedTable(SQLException e) {
            return "42P01".equals(e.getSQLState());
        }

        @Override
        boolean isUndefinedColumn(SQLException e) {
            return "42703".equals(e.getSQLState());
        }
    },

    /** MySQL 8 or MariaDB 10.6 or newer. */
    MYSQL {
        @Override
        String advanceFence(String table, FenceRows.Kind kind, String operator) {
            // after ensureFence: a conditional update counted by matched rows
            return "UPDATE " + table + " SET token = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE kind = " + kind.literal()
                    + " AND resource = ? AND token " + operator + " ?";
        }

        @Override
        String ensureFence(String table, FenceRows.Kind kind) {
            // ON DUPLICATE KEY UPDATE's affected-row count cannot tell "kept" from "changed" on every
            // driver setting, so the row is created first (token 0, below every real token)
            return "INSERT INTO " + table + " (kind, resource, token) VALUES (" + kind.literal() + ", ?, 0)"
                    + " ON DUPLICATE KEY UPDATE resource = resource";
        }

        @Override
        boolean isUndefinedTable(SQLException e) {
            return "42S02".equals(e.getSQLState()) || e.getErrorCode() == 1146;
        }

        @Override
        boolean isUndefinedColumn(SQLException e) {
            return "42S22".equals(e.getSQLState()) || e.getErrorCode() == 1054;
        }
    };

    /**
     * The dialect of {@code connection}'s database.
     *
     * @throws IllegalArgumentException for a database other than PostgreSQL or MySQL/MariaDB
     */
    public static SqlDialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String name = product.toLowerCase(Locale.ROOT);
        if (name.contains("postgres")) {
            return POSTGRESQL;
        }
        if (name.contains("mysql") || name.contains("mariadb")) {
            return MYSQL;
        }
        throw new IllegalArgumentException("unsupported database '" + product + "'; fencing-jdbc supports PostgreSQL and"
                + " MySQL/MariaDB");
    }

    /**
     * The dialect of {@code connection}, asked after {@code failure}; null if the connection cannot
     * answer (the failure may have closed it), with that error added to {@code failure} as
     * suppressed — so the caller reports the failure itself, not "connection closed".
     */
    static @Nullable SqlDialect askedAfter(SQLException failure, Connection connection) {
        try {
            return of(connection);
        } catch (SQLException | RuntimeException cannotAsk) {
            failure.addSuppressed(cannotAsk);
            return null;
        }
    }

    /**
     * Whether {@code e} is the driver losing its connection while a statement ran (SQLState class
     * 08, or the JDBC connection-exception types): the database may have carried the statement out
     * and its reply been lost. A connection refused before anything was sent is not.
     */
    static boolean lostConnection(SQLException e) {
        String state = e.getSQLState();
        boolean connection = (state != null && state.startsWith("08")) || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLTransientConnectionException || e instanceof SQLRecoverableException;
        return connection && FailedWrite.withoutReply(e).mayHaveBeenApplied();
    }

    /**
     * Whether a statement's time ran out ({@link SQLTimeoutException}, PostgreSQL's 57014 query
     * cancelled, MySQL's 70100 query interrupted): the cancel may have come after the database
     * carried the statement out, so a write that timed out is of unknown outcome.
     */
    static boolean timedOut(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLTimeoutException || "57014".equals(state) || "70100".equals(state);
    }

    /**
     * Whether {@code e} means the database did not answer or could not be reached: a connection
     * error (SQLState class 08, the JDBC connection-exception types, a pool's timeout for a free
     * connection) or a statement's timeout — not an answer such as a constraint or a missing table.
     */
    static boolean unanswered(SQLException e) {
        String state = e.getSQLState();
        return (state != null && state.startsWith("08")) || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLTransientConnectionException || e instanceof SQLRecoverableException || timedOut(e);
    }

    /** {@code identifier} quoted as this database quotes names. */
    String quote(String identifier) {
        char quote = this == POSTGRESQL ? '"' : '`';
        return quote + identifier.replace(String.valueOf(quote), String.valueOf(quote) + quote) + quote;
    }

    /**
     * The statement that advances the fence row of {@code kind}. PostgreSQL: parameters resource,
     * token; MySQL: token, resource, token. One row counted means the token was accepted.
     */
    abstract String advanceFence(String table, FenceRows.Kind kind, String operator);

    /**
     * A statement run before {@link #advanceFence} to create a missing fence row of {@code kind}
     * (parameter: resource), or null.
     */
    abstract @Nullable String ensureFence(String table, FenceRows.Kind kind);

    abstract boolean isUndefinedTable(SQLException e);

    abstract boolean isUndefinedColumn(SQLException e);

    /**
     * Whether {@code e} is a unique-key violation: PostgreSQL SQLState 23505, MySQL/MariaDB error 1062
     * (or 1586, the same naming the key). Not the rest of class 23: a CHECK, NOT NULL or foreign-key
     * violation is an error of its own, never "the row exists".
     */
    boolean isDuplicateKey(SQLException e) {
        return this == POSTGRESQL ? "23505".equals(e.getSQLState()) : e.getErrorCode() == 1062 || e.getErrorCode() == 1586;
    }

    /**
     * Whether {@code e} says the transaction lost a race the database will not resolve for it: a
     * serialization failure (SQLState 40001; PostgreSQL REPEATABLE READ when a row changed after the
     * snapshot, MySQL/MariaDB deadlock 1213) or a PostgreSQL deadlock (40P01). A transaction that
     * wrote nothing else may simply run again.
     */
    static boolean isSerializationFailure(SQLException e) {
        return "40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState()) || e.getErrorCode() == 1213;
    }
}
