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

    private static final long TOMBSTONE_VERSION = 0;

    private final DataSource dataSource;
    private final JdbcFence fence;

    FenceRowAccessor(DataSource dataSource, Policy policy) {
        this.dataSource = dataSource;
        this.fence = JdbcFence.create(dataSource, JdbcFence.DEFAULT_TABLE, policy);
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
                Dao.delete(connection, key);
            } else if (Dao.update(connection, key, value, null) == 0) {
                Dao.insert(connection, key, value);
            }
            return WriteOutcome.written();
        });
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        return fenced(key, token, connection -> {
            boolean absent = expected == null || expected.version() == TOMBSTONE_VERSION;
            boolean written = absent ? Dao.insertIfAbsent(connection, key, value)
                    : Dao.update(connection, key, value, expected.version()) == 1;
            if (!written) {
                throw new Conflict();
            }
            return WriteOutcome.written();
        });
    }

    private WriteOutcome fenced(String key, FencingToken token, SqlFunction<WriteOutcome> work) {
        try {
            return fence.inTransaction(FencingToken.of(key, token.value()), work); // the key is the fence row
        } catch (StaleTokenException e) {
            return WriteOutcome.stale(e.highWaterMark());
        } catch (Conflict e) {
            return WriteOutcome.conflict(); // thrown inside, so the fence advance was rolled back too
        } catch (SQLException e) {
            throw new UncheckedSqlException("fence row write", e);
        }
    }

    private static final class Conflict extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Conflict() {
            super("the item changed since it was read", null, false, false);
        }
    }

    /** Plain DAO statements: no token anywhere. */
    private static final class Dao {
        static int update(Connection connection, String key, String value, Long version) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement("UPDATE plain_kv SET v = ?, version = version + 1"
                    + " WHERE k = ?" + (version == null ? "" : " AND version = ?"))) {
                statement.setString(1, value);
                statement.setString(2, key);
                if (version != null) {
                    statement.setLong(3, version);
                }
                return statement.executeUpdate();
            }
        }

        static void insert(Connection connection, String key, String value) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement(
                    "INSERT INTO plain_kv (k, v, version) VALUES (?, ?, 1)")) {
                statement.setString(1, key);
                statement.setString(2, value);
                statement.executeUpdate();
            }
        }

        static boolean insertIfAbsent(Connection connection, String key, String value) throws SQLException {
            // the fence row lock serializes writers of this key, so a plain existence check is enough
            try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM plain_kv WHERE k = ?")) {
                statement.setString(1, key);
                try (ResultSet row = statement.executeQuery()) {
                    if (row.next()) {
                        return false;
                    }
                }
            }
            insert(connection, key, value);
            return true;
        }

        static void delete(Connection connection, String key) throws SQLException {
            try (PreparedStatement statement = connection.prepareStatement("DELETE FROM plain_kv WHERE k = ?")) {
                statement.setString(1, key);
                statement.executeUpdate();
            }
        }
    }
}
