package dev.fencing.propagation;

import dev.fencing.jdbc.JdbcFence;
import java.sql.SQLException;

/**
 * A {@link TokenGate} that checks a request's token against the fence rows of a {@link JdbcFence}
 * ({@code fencing_fence}, one row per lock, kind {@code 'lock'}) — the rows the service's JDBC
 * transactions are fenced by when its handlers run them through a {@code JdbcFence} with the
 * caller's token. One read per admission. Needs {@code fencing-jdbc} and the {@code migrations}
 * module's table.
 *
 * <p>The gate reads the mark and writes nothing ({@link JdbcFence#admit}): it admits a token equal
 * to or above the mark whatever the fence's policy (a holder's every request carries the same
 * token), and the mark moves only with the service's own fenced writes. So a gate never spends a
 * token's {@link dev.fencing.core.Policy#STRICT} pass — whichever {@code JdbcFence}, of whichever
 * policy, the handlers write through — and creates no row for a lock nobody wrote under; it turns a
 * zombie away once a newer holder has written through the service (not merely been admitted). For
 * marks of the admissions themselves, use {@link TokenGate#over} with a MONOTONIC store.
 */
public final class JdbcTokenGate {

    private JdbcTokenGate() {}

    /**
     * A gate over {@code fence}.
     *
     * <p>A refused token throws {@link dev.fencing.core.StaleTokenException} (the fence tells its
     * listener); a database failure throws {@link IllegalStateException} with the
     * {@link SQLException} as its cause, and the filter or interceptor answers it as a server error.
     */
    public static TokenGate over(JdbcFence fence) {
        if (fence == null) {
            throw new IllegalArgumentException("fence must not be null");
        }
        return token -> {
            try {
                fence.admit(token);
            } catch (SQLException e) {
                throw new IllegalStateException("the token gate's fence transaction for lock '" + token.resource()
                        + "' failed: " + e.getMessage() + " (SQLState " + e.getSQLState() + ")", e);
            }
        };
    }
}
