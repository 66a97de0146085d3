package dev.fencing.jdbc;

import java.sql.SQLException;

/** A {@link SQLException} from a {@link dev.fencing.core.FencedStore} method, which cannot throw checked exceptions. */
public final class UncheckedSqlException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UncheckedSqlException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")", cause);
    }

    @Override
    public synchronized SQLException getCause() {
        return (SQLException) super.getCause();
    }
}
