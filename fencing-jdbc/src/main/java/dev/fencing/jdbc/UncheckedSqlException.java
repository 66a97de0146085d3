package dev.fencing.jdbc;

import java.sql.SQLException;
import java.util.Objects;

/** A {@link SQLException} from a {@link dev.fencing.core.FencedStore} method, which cannot throw checked exceptions. */
public final class UncheckedSqlException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UncheckedSqlException(String what, SQLException cause) {
        super(what + " failed: " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")", cause);
    }

    @Override
    public synchronized SQLException getCause() {
        // the constructor sets a cause, which initCause cannot replace
        return (SQLException) Objects.requireNonNull(super.getCause(), "constructed with a cause");
    }
}
