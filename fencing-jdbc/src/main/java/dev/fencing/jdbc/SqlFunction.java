package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Work done on a JDBC connection inside a fenced transaction.
 *
 * @param <T> what the work returns
 */
@FunctionalInterface
public interface SqlFunction<T> {

    /** Does the work; the connection's transaction is committed after it returns, rolled back if it throws. */
    T apply(Connection connection) throws SQLException;
}
