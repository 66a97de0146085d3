package dev.fencing.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * The FencedStore SPI built only from {@link RowGuard}'s public row guard on a user table
 * {@code guarded_kv(k, v, version, fencing_token)}: how the contract exercises the row guard.
 */
final class RowGuardAccessor implements StorageAccessor<Long> {

    private static final long TOMBSTONE_VERSION = 0;

    private final DataSource dataSource;
    private final RowGuard table;
    private final String schema;

    RowGuardAccessor(DataSource dataSource, Policy policy) {
        this.dataSource = dataSource;
        this.table = RowGuard.builder("guarded_kv", "k").policy(policy).build();
        this.schema = CrossPathAccessor.schemaOf(dataSource);
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        return run(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT v, fencing_token, version FROM guarded_kv WHERE k = ?")) {
                statement.setString(1, key);
                try (ResultSet row = statement.executeQuery()) {
                    if (row.next()) {
                        return Optional.of(new Snapshot<>(row.getString(1), row.getLong(2), null, row.getLong(3)));
                    }
                }
            }
            OptionalLong mark = table.highWaterMark(connection, Map.of("k", key));
            return mark.isPresent() ? Optional.of(new Snapshot<>(null, mark.getAsLong(), null, TOMBSTONE_VERSION))
                    : Optional.empty();
        });
    }

    @Override
    public WriteOutcome write(String key, String value, FencingToken token, Policy policy) {
        FencingToken fencing = lockNamedLikeTheRow(key, token);
        return guarded(connection -> {
            if (value == null) {
                table.delete(connection, fencing, Map.of("k", key));
                return WriteOutcome.written();
            }
            int updated = table.execute(connection, fencing, Map.of("k", key), "UPDATE guarded_kv SET v = ?, version ="
                    + " version + 1, fencing_token = :fencing_token WHERE k = ? AND fencing_token " + Sql.operator(policy)
                    + " :fencing_token", value, key);
            if (updated == 0) {
                table.upsert(connection, fencing, Map.of("k", key), Map.of("v", value, "version", 1));
            }
            return WriteOutcome.written();
        });
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        FencingToken fencing = lockNamedLikeTheRow(key, token);
        return guarded(connection -> {
            if (expected == null || expected.version() == TOMBSTONE_VERSION) {
                return table.insert(connection, fencing, Map.of("k", key), Map.of("v", value, "version", 1))
                        ? WriteOutcome.written() : WriteOutcome.conflict();
            }
            int updated = table.execute(connection, fencing, Map.of("k", key), "UPDATE guarded_kv SET v = ?, version ="
                    + " version + 1, fencing_token = :fencing_token WHERE k = ? AND version = ? AND fencing_token "
                    + Sql.operator(policy) + " :fencing_token", value, key, expected.version());
            return updated == 1 ? WriteOutcome.written() : WriteOutcome.conflict();
        });
    }

    /**
     * The row's own lock (the row guard keeps no lock name), named exactly like the row's fence entry:
     * the lock's fence row and the row's entry must stay two marks, whatever the policy.
     */
    private FencingToken lockNamedLikeTheRow(String key, FencingToken token) {
        return FencingToken.of(CrossPathAccessor.entryName(schema, key), token.value());
    }

    private WriteOutcome guarded(SqlFunction<WriteOutcome> work) {
        try {
            return run(work);
        } catch (StaleTokenException e) {
            return WriteOutcome.stale(e.highWaterMark());
        }
    }

    private <T> T run(SqlFunction<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new UncheckedSqlException("row guard", e);
        }
    }
}
