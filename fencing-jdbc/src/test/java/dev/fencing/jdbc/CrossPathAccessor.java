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
import javax.sql.DataSource;

/**
 * The FencedStore SPI over both JDBC paths on one table, {@code guarded_kv}: a write with an even
 * token goes through the row guard ({@link RowGuard}), one with an odd token through the fence
 * row ({@link JdbcFence} around plain DAO statements that know nothing of tokens), so the contract's
 * holders and zombies keep meeting each other across the paths. Each key is guarded by one lock,
 * named exactly like the row's fence entry ({@code <schema>.guarded_kv:<key>}): the row guard's entry
 * and that lock's fence row must stay two marks for the contract to pass. The key's mark is the
 * greater of the row's token, its entry and its lock's fence row.
 */
final class CrossPathAccessor implements StorageAccessor<Long> {

    private static final KeyValueDao DAO = new KeyValueDao("guarded_kv");

    private static final long TOMBSTONE_VERSION = 0;

    private final DataSource dataSource;
    private final RowGuard table;
    private final JdbcFence fence;
    private final String schema;

    CrossPathAccessor(DataSource dataSource, Policy policy) {
        this.dataSource = dataSource;
        this.table = RowGuard.builder("guarded_kv", "k").policy(policy).build();
        this.fence = JdbcFence.builder(dataSource).policy(policy).build();
        this.schema = schemaOf(dataSource);
    }

    /** The lock of {@code key}: the name the row guard gives the row's fence entry. */
    String lockOf(String key) {
        return entryName(schema, key);
    }

    /** The name of {@code guarded_kv}'s row {@code key}'s fence entry, as the row guard spells it. */
    static String entryName(String schema, String key) {
        return schema + ".guarded_kv:" + key.replace("\\", "\\\\").replace(",", "\\,");
    }

    /** The schema (PostgreSQL) or database (MySQL/MariaDB) of the test tables. */
    static String schemaOf(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return SqlDialect.of(connection) == SqlDialect.POSTGRESQL ? "public" : connection.getCatalog();
        } catch (SQLException e) {
            throw new UncheckedSqlException("schema", e);
        }
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        // one statement, so one snapshot, and no locking read (which PostgreSQL's REPEATABLE READ may
        // refuse with 40001 under the contract's concurrency); the row's entry is named like its lock
        String name = lockOf(key);
        return run(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT l.token, r.token, g.fencing_token, g.v,"
                    + " g.version FROM (SELECT 1 AS one) x LEFT JOIN fencing_fence l ON l.kind = 'lock' AND l.resource = ?"
                    + " LEFT JOIN fencing_fence r ON r.kind = 'row' AND r.resource = ? LEFT JOIN guarded_kv g ON g.k = ?")) {
                statement.setString(1, name);
                statement.setString(2, name);
                statement.setString(3, key);
                try (ResultSet row = statement.executeQuery()) {
                    row.next();
                    long token = Math.max(orMinus1(row, 1), Math.max(orMinus1(row, 2), orMinus1(row, 3)));
                    long version = row.getLong(5);
                    if (!row.wasNull()) {
                        return Optional.of(new Snapshot<>(row.getString(4), token, null, version));
                    }
                    return token < 0 ? Optional.empty() : Optional.of(new Snapshot<>(null, token, null, TOMBSTONE_VERSION));
                }
            }
        });
    }

    private static long orMinus1(ResultSet row, int column) throws SQLException {
        long value = row.getLong(column);
        return row.wasNull() ? -1 : value;
    }

    @Override
    public WriteOutcome write(String key, String value, FencingToken token, Policy policy) {
        FencingToken fencing = FencingToken.of(lockOf(key), token.value());
        if (token.value() % 2 != 0) {
            return fenced(fencing, connection -> {
                if (value == null) {
                    DAO.delete(connection, key);
                } else if (DAO.update(connection, key, value, null) == 0) {
                    DAO.insert(connection, key, value);
                }
                return WriteOutcome.written();
            });
        }
        return guarded(connection -> {
            if (value == null) {
                table.delete(connection, fencing, Map.of("k", key));
            } else if (table.execute(connection, fencing, Map.of("k", key), "UPDATE guarded_kv SET v = ?, version ="
                    + " version + 1", value) == 0) {
                table.upsert(connection, fencing, Map.of("k", key), Map.of("v", value, "version", 1));
            }
            return WriteOutcome.written();
        });
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        FencingToken fencing = FencingToken.of(lockOf(key), token.value());
        boolean absent = expected == null || expected.version() == TOMBSTONE_VERSION;
        if (token.value() % 2 != 0) {
            return fenced(fencing, connection -> {
                boolean written = absent ? DAO.insertIfAbsent(connection, key, value)
                        : DAO.update(connection, key, value, expected.version()) == 1;
                if (!written) {
                    throw new KeyValueDao.Conflict();
                }
                return WriteOutcome.written();
            });
        }
        return guarded(connection -> {
            if (absent) {
                return table.insert(connection, fencing, Map.of("k", key), Map.of("v", value, "version", 1))
                        ? WriteOutcome.written() : WriteOutcome.conflict();
            }
            int updated = table.execute(connection, fencing, Map.of("k", key), "UPDATE guarded_kv SET v = ?, version ="
                    + " version + 1 WHERE version = ?", value, expected.version());
            return updated == 1 ? WriteOutcome.written() : WriteOutcome.conflict();
        });
    }

    private WriteOutcome fenced(FencingToken token, SqlFunction<WriteOutcome> work) {
        try {
            return fence.inTransaction(token, work);
        } catch (StaleTokenException e) {
            return WriteOutcome.stale(e.highWaterMark());
        } catch (KeyValueDao.Conflict e) {
            return WriteOutcome.conflict(); // thrown inside, so the fence advance was rolled back too
        } catch (SQLException e) {
            throw new UncheckedSqlException("fence row write", e);
        }
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
            throw new UncheckedSqlException("cross path", e);
        }
    }
}
