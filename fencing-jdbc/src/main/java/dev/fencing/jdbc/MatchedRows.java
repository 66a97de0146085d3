package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

/**
 * MySQL/MariaDB report for an {@code UPDATE} the rows it matched only when the client asks for it
 * ({@code CLIENT_FOUND_ROWS}, the drivers' default); with {@code useAffectedRows=true} they report
 * the rows it changed, and a re-write of identical values counts 0, exactly like a refused write.
 * The guards tell the two apart by the count, so such connections are refused.
 */
final class MatchedRows {

    private MatchedRows() {}

    /**
     * Checks that {@code connection} counts matched rows, by making the row guard entry {@code resource}
     * exist (token 0, below every real token) and upserting it unchanged: a matched-rows connection
     * counts 1, an affected-rows one 0.
     *
     * @throws IllegalStateException if the connection counts changed rows
     */
    static void verify(Connection connection, String fenceTable, String resource) throws SQLException {
        String ensure = Objects.requireNonNull(SqlDialect.MYSQL.ensureFence(fenceTable, FenceRows.Kind.ROW), "MySQL ensures a fence row");
        Sql.update(connection, ensure, List.of(resource));
        requireMatched(Sql.update(connection, ensure, List.of(resource)));
    }

    /** Refuses an unchanged upsert of an existing row that counted 0. */
    static void requireMatched(int unchangedUpsertCount) {
        if (unchangedUpsertCount == 0) {
            throw new IllegalStateException("this MySQL/MariaDB connection counts changed rows instead of matched rows"
                    + " (useAffectedRows=true): an identical re-write would then look like a refused one, so fencing-jdbc"
                    + " cannot tell a stale token from a write that changed nothing. Remove useAffectedRows from the JDBC"
                    + " URL or data source properties (the drivers' default counts matched rows)");
        }
    }
}
