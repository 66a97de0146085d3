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
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The FencedStore SPI built from {@link JdbcFence}: plain, unfenced DAO statements on
 * {@code plain_kv(k, v, version)} — a table with no token column — run behind the fence row of
 * the key. How the contract exercises the fence row; the mark of a deleted row is the fence row,
 * which outlives it.
 */
final class FenceRowAccessor implements StorageAccessor<Long> {

    private static final KeyValueDao DAO = new KeyValueDao("plain_kv");

    private static final long TOMBSTONE_VERSION = 0;

    private final DataSource dataSource;
    private final JdbcFence fence;

    FenceRowAccessor(DataSource dataSource, Policy policy) {
        this.dataSource = dataSource;
        this.fence = JdbcFence.builder(dataSource).policy(policy).build();
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement("SELECT f.token, p.v, p.version FROM"
                        + " fencing_fence f LEFT JOIN plain_kv p ON p.k = f.resource WHERE f.kind = 'lock' AND f.resource = ?")) {
            statement.setString(1, key);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                long version = row.getLong(3);
                return Optional.of(row.wasNull()
                        ? new Snapshot<>(null, row.getLong(1), null, TOMBSTONE_VERSION)
                        : new Snapshot<>(row.getString(2), row.getLong(1), null, version));
            }
        } catch (SQLException e) {
            throw new UncheckedSqlException("fence row load", e);
        }
    }

    @Override
    public WriteOutcome write(String key, String value, FencingToken token, Policy policy) {
        return fenced(key, token, connection -> {
            if (value == null) {
                DAO.delete(connection, key);
            } else if (DAO.update(connection, key, value, null) == 0) {
                DAO.insert(connection, key, value);
            }
            return WriteOutcome.written();
        });
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        return fenced(key, token, connection -> {
            boolean absent = expected == null || expected.version() == TOMBSTONE_VERSION;
            boolean written = absent ? DAO.insertIfAbsent(connection, key, value)
                    : DAO.update(connection, key, value, expected.version()) == 1;
            if (!written) {
                throw new KeyValueDao.Conflict();
            }
            return WriteOutcome.written();
        });
    }

    private WriteOutcome fenced(String key, FencingToken token, SqlFunction<WriteOutcome> work) {
        try {
            return fence.inTransaction(FencingToken.of(key, token.value()), work); // the key is the fence row
        } catch (StaleTokenException e) {
            return WriteOutcome.stale(e.highWaterMark());
        } catch (KeyValueDao.Conflict e) {
            return WriteOutcome.conflict(); // thrown inside, so the fence advance was rolled back too
        } catch (SQLException e) {
            throw new UncheckedSqlException("fence row write", e);
        }
    }
}
