package dev.fencing.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link StorageAccessor} of {@link JdbcFencedStore}: each write one guarded SQL statement (an
 * {@code UPDATE} whose {@code WHERE} holds the token check, or an {@code INSERT} of an absent row).
 * Thread-safe.
 */
final class JdbcStorageAccessor implements StorageAccessor<Long> {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcStorageAccessor.class);

    private static final int WRITE_ROUNDS = 10;

    private final DataSource dataSource;
    private final String table;
    private volatile @Nullable SqlDialect checked;

    JdbcStorageAccessor(DataSource dataSource, String table) {
        this.dataSource = dataSource;
        this.table = table;
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        return withConnection("reading '" + key + "'", connection -> {
            try (PreparedStatement statement = Sql.prepare(connection, "SELECT item_value, token, version, fence_resource"
                    + " FROM " + table + " WHERE item_key = ?", List.of(key)); ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Snapshot<>(row.getString(1), row.getLong(2), resource(row, 4),
                        row.getLong(3)));
            }
        });
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        return withConnection("writing '" + key + "'", key, connection -> {
            for (int round = 0; round < WRITE_ROUNDS; round++) {
                int updated;
                try {
                    updated = update(connection, key, value, token, policy, null);
                } catch (SQLException e) {
                    if (!SqlDialect.isSerializationFailure(e)) {
                        throw e;
                    }
                    continue; // REPEATABLE READ: the row changed while this statement waited for it
                }
                if (updated == 1) {
                    return WriteOutcome.written();
                }
                Optional<Snapshot<Long>> mark = mark(connection, key);
                if (mark.isPresent()) {
                    WriteOutcome refusal = refusal(mark.get(), token, policy);
                    if (refusal != null) {
                        return refusal;
                    }
                    continue; // changed between the statements
                }
                try {
                    if (insert(connection, key, value, token)) {
                        return WriteOutcome.written();
                    }
                } catch (SQLException e) {
                    if (!SqlDialect.isSerializationFailure(e)) {
                        throw e;
                    }
                    // MariaDB: inserters waiting on a row whose own INSERT rolled back (another unique
                    // column of the table refused it) deadlock; the victim's INSERT was rolled back
                }
            }
            throw new IllegalStateException("writing '" + key + "' kept racing with other writers for " + WRITE_ROUNDS
                    + " rounds; retry it");
        });
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        return withConnection("writing '" + key + "'", key, connection -> {
            boolean written;
            try {
                written = expected == null
                        ? insert(connection, key, value, token)
                        : update(connection, key, value, token, policy, expected.version()) == 1;
            } catch (SQLException e) {
                if (!SqlDialect.isSerializationFailure(e)) {
                    throw e;
                }
                return WriteOutcome.conflict(); // the row changed while this statement waited: the core reloads
            }
            if (written) {
                return WriteOutcome.written();
            }
            Optional<Snapshot<Long>> mark = mark(connection, key);
            WriteOutcome refusal = mark.map(found -> refusal(found, token, policy)).orElse(null);
            return refusal != null ? refusal : WriteOutcome.conflict();
        });
    }

    /** Why the stored row refuses {@code token}: another lock's key, or a stale token; null if it accepts it. */
    private static @Nullable WriteOutcome refusal(Snapshot<Long> stored, FencingToken token, Policy policy) {
        if (stored.fencedByAnotherLockThan(token)) {
            return WriteOutcome.foreign(Objects.requireNonNull(stored.resource(), "fenced by another lock: a resource"));
        }
        return policy.accepts(token.value(), stored.token()) ? null : WriteOutcome.stale(stored.token());
    }

    private int update(Connection connection, String key, @Nullable String value, FencingToken token, Policy policy,
            @Nullable Long version) throws SQLException {
        String sql = "UPDATE " + table + " SET item_value = ?, token = ?, fence_resource = ?, version = version + 1,"
                + " updated_at = CURRENT_TIMESTAMP WHERE item_key = ? AND token " + Sql.operator(policy) + " ?"
                + " AND (fence_resource IS NULL OR fence_resource = ?)"
                + (version == null ? "" : " AND version = ?");
        List<Object> params = new ArrayList<>(Arrays.asList(value, token.value(), token.resource(), key, token.value(),
                token.resource()));
        if (version != null) {
            params.add(version);
        }
        return Sql.update(connection, sql, params);
    }

    private boolean insert(Connection connection, String key, @Nullable String value, FencingToken token) throws SQLException {
        try {
            Sql.update(connection, "INSERT INTO " + table + " (item_key, item_value, token, version, fence_resource)"
                    + " VALUES (?, ?, ?, 1, ?)", Arrays.asList(key, value, token.value(), token.resource()));
            return true;
        } catch (SQLException e) {
            // the dialect was checked before any write; a dead connection cannot be asked for it
            SqlDialect dialect = Objects.requireNonNull(checked, "checked before any write");
            if (dialect.isDuplicateKey(e) && rowExists(connection, dialect, key)) {
                return false; // someone inserted the key first
            }
            throw e; // a CHECK, NOT NULL or another unique constraint of a table of your own: not "exists"
        }
    }

    /** The row's token and resource (value and version left out), read afresh in auto-commit mode. */
    private Optional<Snapshot<Long>> mark(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement = Sql.prepare(connection, "SELECT token, fence_resource FROM " + table
                + " WHERE item_key = ?", List.of(key)); ResultSet row = statement.executeQuery()) {
            return row.next() ? Optional.of(new Snapshot<>(null, row.getLong(1), resource(row, 2), 0L)) : Optional.empty();
        }
    }

    /**
     * Whether {@code key}'s row exists after an {@code INSERT} collided with it. On MySQL/MariaDB a
     * locking read ({@code FOR UPDATE}, the newest committed version): MariaDB 11.4 once reported the
     * duplicate while a plain {@code SELECT} right after it still missed the winner's committed row
     * (the contract's racing writers under a full build's load), and the loser got the duplicate-key
     * error. On PostgreSQL a plain read: the duplicate is reported once the winner committed, so the
     * next statement's snapshot has it, and a locking read there fails at REPEATABLE READ when the
     * row is being updated.
     */
    private boolean rowExists(Connection connection, SqlDialect dialect, String key) throws SQLException {
        try (PreparedStatement statement = Sql.prepare(connection, "SELECT token FROM " + table + " WHERE item_key = ?"
                + (dialect == SqlDialect.MYSQL ? " FOR UPDATE" : ""), List.of(key));
                ResultSet row = statement.executeQuery()) {
            return row.next();
        }
    }

    /** The resource column as text: VARBINARY on MySQL/MariaDB holds its UTF-8 bytes. */
    private static @Nullable String resource(ResultSet row, int column) throws SQLException {
        if (row.getMetaData().getColumnType(column) == Types.VARBINARY) {
            byte[] bytes = row.getBytes(column);
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }
        return row.getString(column);
    }

    @Override
    public boolean unanswered(RuntimeException failure) {
        return failure instanceof UncheckedSqlException unchecked && SqlDialect.unanswered(unchecked.getCause());
    }

    @Override
    public String server() {
        return "the database of table '" + table + "'";
    }

    private <T> T withConnection(String what, SqlFunction<T> work) {
        return withConnection(what, null, work);
    }

    /**
     * Runs {@code work} on a connection of its own. When {@code writing} names a key, a connection
     * lost while the work ran (its reply lost after the database may have committed the statement)
     * or a statement timeout (the cancel may come after the commit) is
     * {@link WriteOutcomeUnknownException} with the driver's error as the cause: the database keeps
     * nothing that would tell this write from another writer's with the same token.
     */
    private <T> T withConnection(String what, @Nullable String writing, SqlFunction<T> work) {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new UncheckedSqlException(what + " in " + table, e); // nothing was sent
        }
        T result;
        try {
            SqlDialect dialect;
            try {
                dialect = prepare(connection);
            } catch (SQLException e) {
                throw SchemaProblems.check(SqlDialect.askedAfter(e, connection), e, table, null);
            }
            try {
                result = work.apply(connection);
            } catch (SQLException e) {
                if (writing != null && (SqlDialect.lostConnection(e) || SqlDialect.timedOut(e))) {
                    throw WriteOutcomeUnknownException.of(writing, e);
                }
                throw SchemaProblems.check(dialect, e, table, null);
            }
        } catch (SQLException e) {
            closeAfter(connection, e);
            throw new UncheckedSqlException(what + " in " + table, e);
        } catch (RuntimeException | Error e) {
            closeAfter(connection, e);
            throw e;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            // the work's answer came (a pool resetting the connection on its way back may still time
            // out): handing the connection back changes nothing the database answered
            LOG.warn("{} in {} succeeded, but handing its connection back failed (the result stands): {}", what, table,
                    e.toString());
        }
        return result;
    }

    private static void closeAfter(Connection connection, Throwable failure) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** Auto-commit on, and on first use the key and resource columns checked; the database's dialect. */
    private SqlDialect prepare(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            connection.setAutoCommit(true);
        }
        SqlDialect dialect = checked;
        if (dialect == null) {
            dialect = SqlDialect.of(connection);
            Catalog.requireExactKey(connection, dialect, table, "item_key");
            // the lock name is compared in the same SQL condition: a collation that folds case or
            // pads spaces would let lock 'orders' write (and re-bind) a key of lock 'Orders'
            Catalog.requireExactKey(connection, dialect, table, "fence_resource");
            checked = dialect;
        }
        return dialect;
    }
}
