package dev.fencing.propagation;

import dev.fencing.jdbc.JdbcFence;
import java.sql.SQLException;

/**
 * A {@link TokenGate} whose marks are the fence rows of a {@link JdbcFence} ({@code fencing_fence},
 * one row per lock, kind {@code 'lock'}): each admission is one fence transaction, durable in the
 * service's own database. The same rows fence the service's JDBC transactions when its handlers run
 * them through the same {@code JdbcFence} with the caller's token — then the gate and the writes
 * share one mark per lock. Needs {@code fencing-jdbc} and the {@code migrations} module's table.
 *
 * <p>The gate admits a token equal to or above the mark whatever the fence's policy
 * ({@link JdbcFence#admit}): a holder's every request carries the same token. Under
 * {@link dev.fencing.core.Policy#MONOTONIC} it raises the mark to the token; under
 * {@link dev.fencing.core.Policy#STRICT} it only checks, leaving the token's one strict pass for
 * the handler's own fenced transaction — so a STRICT service refuses a repeated write, not a
 * repeated request.
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
