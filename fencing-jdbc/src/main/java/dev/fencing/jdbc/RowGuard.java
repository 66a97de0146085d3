// Over 500 lines: five public operations with their contracts; the SQL work is already in package classes.
package dev.fencing.jdbc;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.internal.SafeListener;
import dev.fencing.core.spi.Refusals;
import dev.fencing.jdbc.TableShape.RowKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The row guard: fenced {@code UPDATE}, upsert and {@code DELETE} on one of your tables that has
 * a token column ({@code fencing_token BIGINT NOT NULL DEFAULT 0}, added by the migrations
 * module's {@code AddFencingTokenColumns}).
 *
 * <pre>{@code
 * RowGuard accounts = RowGuard.create("accounts", "id");
 * accounts.update(connection, lease.token(), Map.of("id", 7), Map.of("balance", 150));
 * // the fence row of the token's lock, then
 * // UPDATE accounts SET balance = ?, fencing_token = ? WHERE id = ? AND fencing_token <= ?
 * }</pre>
 *
 * <p>Every operation first raises the fence row of the token's lock (the row {@link JdbcFence} and
 * {@link JdbiFence} advance) and, for inserts, upserts and deletes, the row's own fence entry,
 * which outlives the row: so writes through the row guard and through a fence row of the same lock
 * refuse each other's older tokens, and a zombie cannot re-create a row a newer holder deleted. A
 * refused write throws {@link StaleTokenException} naming the mark the store really holds.
 *
 * <p>What is refused up front: key columns whose comparison the entry's name cannot reproduce
 * (case- or accent-insensitive collations, with {@link IllegalStateException}), keys the column
 * cannot hold as given ({@link IllegalArgumentException}), and a data table whose schema has no
 * fence table. The operations run in a transaction (their own on an auto-commit connection, else
 * yours). Immutable and thread-safe. What each operation runs, the two namespaces of the fence
 * table, key columns and where {@code fencing_fence} lives are in {@code docs/sql.md}.
 */
public final class RowGuard {

    /** The marker a hand-written statement may use for the token. */
    public static final String TOKEN_MARKER = ":fencing_token";

    /** The token column unless configured otherwise, added by the migrations module's {@code AddFencingTokenColumns}. */
    public static final String DEFAULT_TOKEN_COLUMN = "fencing_token";

    private static final int MAX_CACHED = 64;

    private final String table;
    private final List<String> keyColumns;
    private final String tokenColumn;
    private final Policy policy;
    private final String fenceTable;
    private final FencingListener listener;
    /** What the catalog says about the table, per database (connection catalog). */
    private final Map<String, TableShape> shapes = new ConcurrentHashMap<>();
    /** Column sets already validated, so a repeated write checks no names. */
    private final Map<Set<String>, List<String>> checkedColumns = new ConcurrentHashMap<>();
    /** Hand-written statements already parsed and rewritten, per dialect. */
    private final Map<String, GuardedStatement> statements = new ConcurrentHashMap<>();

    private RowGuard(String table, List<String> keyColumns, String tokenColumn, Policy policy, String fenceTable,
            FencingListener listener) {
        this.table = table;
        this.keyColumns = keyColumns;
        this.tokenColumn = tokenColumn;
        this.policy = policy;
        this.fenceTable = fenceTable;
        this.listener = listener;
    }

    /**
     * The guard of {@code table} keyed by {@code keyColumns}, with the defaults: token column
     * {@value #DEFAULT_TOKEN_COLUMN}, {@link Policy#MONOTONIC}, fence table
     * {@value JdbcFence#DEFAULT_TABLE} next to the data table, no listener.
     *
     * @throws IllegalArgumentException as {@link #builder}
     */
    public static RowGuard create(String table, String... keyColumns) {
        return builder(table, keyColumns).build();
    }

    /**
     * A builder for the guard of {@code table} (an unquoted SQL name, optionally schema-qualified)
     * keyed by {@code keyColumns} (one or more unquoted column names, each once, in any order):
     * token column {@value #DEFAULT_TOKEN_COLUMN}, {@link Policy#MONOTONIC}, fence table
     * {@value JdbcFence#DEFAULT_TABLE} and no listener unless set.
     *
     * @throws IllegalArgumentException naming the table or key column that is not allowed
     */
    public static Builder builder(String table, String... keyColumns) {
        Sql.requireTable(table);
        if (keyColumns == null || keyColumns.length == 0) {
            throw new IllegalArgumentException("name the key column(s) of table '" + table + "', got none");
        }
        List<String> keys = new ArrayList<>();
        for (String key : keyColumns) {
            Sql.requireColumn("key column", key);
            if (keys.stream().anyMatch(key::equalsIgnoreCase)) {
                throw new IllegalArgumentException("key column '" + key + "' of table '" + table
                        + "' is named twice; name each key column once, got " + Arrays.toString(keyColumns));
            }
            keys.add(key);
        }
        return new Builder(table, List.copyOf(keys));
    }

    /**
     * Sets {@code values} and the token on the row with {@code key}, if the row's token passes the policy.
     *
     * @return true if the row was updated, false if there is no such row (and no fenced delete of it
     *     left a newer mark)
     * @throws StaleTokenException if the row, the mark its fenced delete left, or the fence row of the
     *     token's lock carries a newer token; nothing was written
     * @throws IllegalArgumentException for a key the key column cannot hold as given
     */
    public boolean update(Connection connection, FencingToken token, Map<String, ?> key, Map<String, ?> values)
            throws SQLException {
        checkToken(token);
        List<String> keys = keyColumns(key);
        List<String> columns = valueColumns(values);
        return run(connection, () -> Transactions.inTransaction(connection, () -> {
            TableShape shape = shape(connection);
            RowKey row = shape.rowKey(key, keys);
            advanceLockEntry(connection, shape, token, key, row);
            for (int attempt = 0; attempt < Transactions.ATTEMPTS; attempt++) {
                if (guardedUpdate(connection, shape, token, row, values, columns) > 0) {
                    return true;
                }
                if (!rowAcceptsToken(connection, shape, token, key, row, false)) {
                    return false;
                }
            }
            throw keptRacing("update", key);
        }, updated -> updated));
    }

    /**
     * Updates the row with {@code key} as {@link #update} does, or inserts it if absent — unless a
     * fenced delete left a newer mark for it.
     *
     * @throws StaleTokenException if the row, or its deleted row's mark, carries a newer token
     */
    public void upsert(Connection connection, FencingToken token, Map<String, ?> key, Map<String, ?> values)
            throws SQLException {
        checkToken(token);
        List<String> keys = keyColumns(key);
        List<String> columns = valueColumns(values);
        run(connection, () -> Transactions.inTransaction(connection, () -> {
            TableShape shape = shape(connection);
            RowKey row = shape.rowKey(key, keys);
            advanceLockEntry(connection, shape, token, key, row);
            // every writer that may create or delete this row passes its fence entry first: they
            // serialize on that row lock, so a delete and a re-create can never interleave
            advanceEntry(connection, shape, token, key, row);
            for (int attempt = 0; attempt < Transactions.ATTEMPTS; attempt++) {
                if (guardedUpdate(connection, shape, token, row, values, columns) > 0) {
                    return true; // written; the result is not used
                }
                if (rowAcceptsToken(connection, shape, token, key, row, true)) {
                    continue; // the row changed between the two statements: try again
                }
                if (insert(connection, shape, token, row, values, columns)) {
                    return true;
                }
            }
            throw keptRacing("upsert", key);
        }));
    }

    /**
     * Inserts the row with {@code key} only if it does not exist and no fenced delete left a newer
     * mark for it.
     *
     * @return true if inserted, false if a row with that key already exists (nothing written)
     * @throws StaleTokenException if a fenced delete of the row carried a newer token
     */
    public boolean insert(Connection connection, FencingToken token, Map<String, ?> key, Map<String, ?> values)
            throws SQLException {
        checkToken(token);
        List<String> keys = keyColumns(key);
        List<String> columns = valueColumns(values);
        return run(connection, () -> Transactions.inTransaction(connection, () -> {
            TableShape shape = shape(connection);
            RowKey row = shape.rowKey(key, keys);
            Savepoint before = connection.setSavepoint();
            advanceLockEntry(connection, shape, token, key, row);
            advanceEntry(connection, shape, token, key, row);
            if (insert(connection, shape, token, row, values, columns)) {
                connection.releaseSavepoint(before);
                return true;
            }
            connection.rollback(before); // the row exists: leave the fence entry as it was too
            return false;
        }));
    }

    /**
     * Deletes the row with {@code key} if its token passes the policy, and keeps the token as the
     * row's mark in the fence table — also when there was no row, so an older holder cannot
     * create it afterwards.
     *
     * @return true if a row was deleted, false if there was none
     * @throws StaleTokenException if the row (or its mark) carries a newer token; nothing was deleted
     */
    public boolean delete(Connection connection, FencingToken token, Map<String, ?> key) throws SQLException {
        checkToken(token);
        List<String> keys = keyColumns(key);
        return run(connection, () -> Transactions.inTransaction(connection, () -> {
            TableShape shape = shape(connection);
            RowKey row = shape.rowKey(key, keys);
            advanceLockEntry(connection, shape, token, key, row);
            // the mark outlives the row (also for a row that was never there): a zombie cannot create it later
            advanceEntry(connection, shape, token, key, row);
            List<Object> params = new ArrayList<>(row.values());
            params.add(token.value());
            String sql = "DELETE FROM " + shape.quotedName() + " WHERE " + keyCondition() + " AND " + tokenColumn + " "
                    + Sql.operator(policy) + " ?";
            for (int attempt = 0; attempt < Transactions.ATTEMPTS; attempt++) {
                if (Sql.update(connection, sql, params) > 0) {
                    return true;
                }
                if (!rowAcceptsToken(connection, shape, token, key, row, true)) {
                    return false;
                }
            }
            throw keptRacing("delete", key);
        }));
    }

    /**
     * Runs a hand-written {@code UPDATE} of the row with {@code key}, guarded by the toolkit: it sets
     * the token column to the token, and ANDs the row's key and the token check to your condition,
     * which it puts in parentheses. So
     * {@code UPDATE accounts SET balance = balance - ? WHERE balance >= ?} runs as
     * {@code UPDATE accounts SET fencing_token = ?, balance = balance - ? WHERE (balance >= ?) AND
     * accounts.id = ? AND accounts.fencing_token <= ?}. You may write
     * {@code fencing_token = }{@value #TOKEN_MARKER} yourself, and use {@value #TOKEN_MARKER}
     * elsewhere; it is bound to the token. The {@code ?} parameters are {@code params}, in order.
     *
     * <p>Refused with {@link IllegalArgumentException}, before anything runs: any statement other
     * than {@code UPDATE <this table> SET ... [WHERE ...]} (INSERT and DELETE cannot keep a deleted
     * row's mark here: use {@link #insert}, {@link #upsert}, {@link #delete}); setting the token
     * column to anything but the marker; changing a key column; joins, {@code FROM},
     * {@code RETURNING}; comments, {@code ;}, backslashes in quotes, dollar quoting.
     *
     * @param key the key of the row the statement writes
     * @return the update count (0 or 1); 0 if the row does not exist or your own condition did not match
     * @throws StaleTokenException if nothing matched because the row (or its deleted row's mark)
     *     carries a newer token
     */
    public int execute(Connection connection, FencingToken token, Map<String, ?> key, String sql, Object... params)
            throws SQLException {
        checkToken(token);
        List<String> keys = keyColumns(key);
        List<Object> callerParams = params == null ? List.of() : Arrays.asList(params);
        return run(connection, () -> Transactions.inTransaction(connection, () -> {
            TableShape shape = shape(connection);
            GuardedStatement statement = guarded(sql, shape);
            RowKey row = shape.rowKey(key, keys);
            advanceLockEntry(connection, shape, token, key, row);
            int count = Sql.update(connection, statement.sql(), statement.bind(callerParams, token.value(), row.values()));
            if (count == 0) {
                rowAcceptsToken(connection, shape, token, key, row, false); // throws if stale; else 0 is your condition's
            }
            return count;
        }, count -> count > 0));
    }

    /**
     * The row's mark: the greater of its token and the mark its fenced delete left; empty if neither
     * exists. Both are read with {@code SELECT ... FOR UPDATE}: inside your transaction the answer is
     * the newest committed mark, never the snapshot's older one (REPEATABLE READ), and the row and
     * its entry stay locked until you commit or roll back; PostgreSQL under REPEATABLE READ may refuse
     * the read of a row changed after the snapshot with a serialization failure (40001).
     */
    public OptionalLong highWaterMark(Connection connection, Map<String, ?> key) throws SQLException {
        List<String> keys = keyColumns(key);
        return run(connection, () -> Transactions.statements(connection, () -> {
            TableShape shape = shape(connection);
            RowKey row = shape.rowKey(key, keys);
            // locking reads: a plain read inside REPEATABLE READ would answer from the snapshot, older
            // than the mark a refusal in the same transaction has just named
            return max(rowToken(connection, shape, row), FenceRows.mark(connection, shape.fenceTable(), FenceRows.Kind.ROW, row.resource()));
        }));
    }

    /**
     * Raises the fence row of the token's lock, the one {@link JdbcFence} and {@link JdbiFence} advance
     * for that lock, to the token (with {@code <=} whatever the table's policy: one token may write
     * many rows). So a write through either path refuses a token older than one the other path
     * accepted, and it is locked until the transaction ends, so the paths serialize. An operation
     * that writes nothing rolls back a transaction of its own, so the fence row keeps only tokens
     * that wrote.
     */
    private void advanceLockEntry(Connection connection, TableShape shape, FencingToken token, Map<String, ?> key,
            RowKey row) throws SQLException {
        // the lock namespace: a lock named like this row's entry still has a fence row of its own
        OptionalLong refusedBy = FenceRows.tryAdvance(connection, shape.dialect(), shape.fenceTable(),
                FenceRows.Kind.LOCK, token.resource(), token.value(), Policy.MONOTONIC);
        if (refusedBy.isPresent()) {
            // name the row's own mark if it is newer (written under another lock)
            OptionalLong rowMark = max(rowToken(connection, shape, row),
                    FenceRows.mark(connection, shape.fenceTable(), FenceRows.Kind.ROW, row.resource()));
            throw stale(key, token, max(refusedBy, rowMark).getAsLong());
        }
    }

    /** Advances the row's fence entry; a refusal names the row's real mark (its token may be newer than the entry). */
    private void advanceEntry(Connection connection, TableShape shape, FencingToken token, Map<String, ?> key, RowKey row)
            throws SQLException {
        OptionalLong refusedBy = FenceRows.tryAdvance(connection, shape.dialect(), shape.fenceTable(), FenceRows.Kind.ROW,
                row.resource(), token.value(), policy);
        if (refusedBy.isPresent()) {
            throw stale(key, token, max(refusedBy, rowToken(connection, shape, row)).getAsLong());
        }
    }

    /**
     * After a guarded statement matched nothing, reads the row and (unless this transaction has
     * just advanced it to the token) its fence entry with locking reads, which see the newest
     * committed rows also under REPEATABLE READ.
     *
     * @return true if the row exists with a token the policy accepts (it changed between the
     *     statements, or your own condition failed), false if there is no row
     * @throws StaleTokenException if the row or its entry holds a token the policy refuses
     */
    private boolean rowAcceptsToken(Connection connection, TableShape shape, FencingToken token, Map<String, ?> key,
            RowKey row, boolean entryAdvanced) throws SQLException {
        OptionalLong rowToken = rowToken(connection, shape, row);
        if (rowToken.isPresent() && policy.accepts(token.value(), rowToken.getAsLong())) {
            if (!shape.countsMatchedRows()) {
                MatchedRows.verify(connection, shape.fenceTable(), row.resource()); // else 0 may mean "changed nothing"
                shape.sawMatchedRows();
            }
            return true;
        }
        OptionalLong mark = entryAdvanced ? rowToken
                : max(rowToken, FenceRows.mark(connection, shape.fenceTable(), FenceRows.Kind.ROW, row.resource()));
        if (mark.isPresent() && !policy.accepts(token.value(), mark.getAsLong())) {
            throw stale(key, token, mark.getAsLong());
        }
        return false;
    }

    private int guardedUpdate(Connection connection, TableShape shape, FencingToken token, RowKey row,
            Map<String, ?> values, List<String> columns) throws SQLException {
        List<Object> params = new ArrayList<>(columns.size() + row.values().size() + 2);
        for (String column : columns) {
            params.add(values.get(column));
        }
        params.add(token.value());
        params.addAll(row.values());
        params.add(token.value());
        String sql = shape.updateSql(columns, cols -> {
            StringJoiner set = new StringJoiner(", ");
            cols.forEach(column -> set.add(column + " = ?"));
            set.add(tokenColumn + " = ?");
            return "UPDATE " + shape.quotedName() + " SET " + set + " WHERE " + keyCondition() + " AND " + tokenColumn + " "
                    + Sql.operator(policy) + " ?";
        });
        return Sql.update(connection, sql, params);
    }

    /**
     * Inserts the row.
     *
     * @return false if the row's key already exists; any other error (a CHECK, another unique
     *     constraint) is thrown unchanged
     */
    private boolean insert(Connection connection, TableShape shape, FencingToken token, RowKey row,
            Map<String, ?> values, List<String> columns) throws SQLException {
        List<String> names = new ArrayList<>(keyColumns);
        names.addAll(columns);
        names.add(tokenColumn);
        List<Object> params = new ArrayList<>(row.values());
        columns.forEach(column -> params.add(values.get(column)));
        params.add(token.value());
        String sql = "INSERT INTO " + shape.quotedName() + " (" + String.join(", ", names) + ") VALUES ("
                + String.join(", ", Collections.nCopies(names.size(), "?")) + ")";
        if (shape.dialect() == SqlDialect.MYSQL) {
            StrictMode.require(connection, shape.canonicalName());
        }
        Savepoint beforeInsert = connection.setSavepoint();
        try {
            Sql.update(connection, sql, params);
            connection.releaseSavepoint(beforeInsert);
            return true;
        } catch (SQLException e) {
            connection.rollback(beforeInsert);
            if (!shape.dialect().isDuplicateKey(e) || rowToken(connection, shape, row).isEmpty()) {
                throw e; // not this key's duplicate: a unique constraint of another column
            }
            return false;
        }
    }

    private OptionalLong rowToken(Connection connection, TableShape shape, RowKey row) throws SQLException {
        return Sql.queryLong(connection, "SELECT " + tokenColumn + " FROM " + shape.quotedName() + " WHERE "
                + keyCondition() + " FOR UPDATE", row.values());
    }

    private TableShape shape(Connection connection) throws SQLException {
        String catalog = String.valueOf(connection.getCatalog());
        TableShape shape = shapes.get(catalog);
        if (shape == null) {
            shape = TableShape.describe(connection, SqlDialect.of(connection), table, keyColumns, tokenColumn, fenceTable);
            if (shapes.size() < MAX_CACHED) {
                shapes.putIfAbsent(catalog, shape);
            }
        }
        return shape;
    }

    private GuardedStatement guarded(String sql, TableShape shape) {
        String cacheKey = shape.dialect() + "\n" + shape.quotedName() + "\n" + sql;
        GuardedStatement statement = statements.get(cacheKey);
        if (statement == null) {
            statement = GuardedStatement.parse(sql, shape.dialect(), TOKEN_MARKER, tokenColumn, keyColumns, policy,
                    shape.quotedName());
            if (statements.size() < MAX_CACHED) {
                statements.putIfAbsent(cacheKey, statement);
            }
        }
        String written = statement.writtenTable();
        boolean foldsCase = shape.dialect() == SqlDialect.POSTGRESQL;
        if (!(foldsCase ? written.equalsIgnoreCase(table) || written.equalsIgnoreCase(shape.canonicalName())
                : written.equals(table) || written.equals(shape.canonicalName()))) {
            throw new IllegalArgumentException("the statement updates '" + written + "', but this RowGuard guards '"
                    + table + "' (" + shape.canonicalName() + "); got: " + sql);
        }
        return statement;
    }

    /** Maps a missing table or column to the error that names the migration. */
    private <T> T run(Connection connection, Transactions.Work<T> work) throws SQLException {
        try {
            return work.run();
        } catch (SQLException e) {
            throw SchemaProblems.check(SqlDialect.askedAfter(e, connection), e, table, tokenColumn, fenceTable);
        }
    }

    private List<String> keyColumns(Map<String, ?> key) {
        boolean matches = key != null && key.size() == keyColumns.size();
        for (int i = 0; matches && i < keyColumns.size(); i++) {
            matches = key.containsKey(keyColumns.get(i));
        }
        if (!matches) {
            throw new IllegalArgumentException("the key of table '" + table + "' is " + keyColumns + ", got "
                    + (key == null ? null : key.keySet()));
        }
        for (String column : keyColumns) {
            if (key.get(column) == null) {
                throw new IllegalArgumentException("key column '" + column + "' must not be null");
            }
        }
        return keyColumns;
    }

    /** The columns of {@code values}, validated and sorted; remembered per column set (validation runs once). */
    private List<String> valueColumns(Map<String, ?> values) {
        if (values == null || values.isEmpty()) {
            throw new IllegalArgumentException("name at least one column to write in table '" + table + "'");
        }
        List<String> known = checkedColumns.get(values.keySet());
        if (known != null) {
            return known;
        }
        List<String> columns = new ArrayList<>();
        for (String column : values.keySet()) {
            Sql.requireColumn("column", column);
            if (column.equalsIgnoreCase(tokenColumn) || keyColumns.stream().anyMatch(column::equalsIgnoreCase)) {
                throw new IllegalArgumentException("column '" + column + "' is the token or a key column; the guard"
                        + " writes the token itself and never changes the key");
            }
            columns.add(column);
        }
        columns.sort(null);
        List<String> checked = List.copyOf(columns);
        if (checkedColumns.size() < MAX_CACHED) {
            checkedColumns.putIfAbsent(Set.copyOf(checked), checked);
        }
        return checked;
    }

    private String keyCondition() {
        StringJoiner where = new StringJoiner(" AND ");
        keyColumns.forEach(column -> where.add(column + " = ?"));
        return where.toString();
    }

    /** The refusal, already logged and reported to the listener: every caller throws it. */
    private StaleTokenException stale(Map<String, ?> key, FencingToken token, long mark) {
        return Refusals.reported(listener, StaleTokenException.of(table + key, token, mark, policy));
    }

    private IllegalStateException keptRacing(String operation, Map<String, ?> key) {
        return new IllegalStateException(operation + " of " + table + key + " kept racing with other writers for "
                + Transactions.ATTEMPTS + " rounds; retry it");
    }

    private static OptionalLong max(OptionalLong a, OptionalLong b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isPresent() && b.getAsLong() > a.getAsLong() ? b : a;
    }

    private static void checkToken(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
    }
    /** Configures a {@link RowGuard}; every setting but the table and its key columns is optional. */
    public static final class Builder {
        private final String table;
        private final List<String> keyColumns;
        private String tokenColumn = DEFAULT_TOKEN_COLUMN;
        private Policy policy = Policy.MONOTONIC;
        private String fenceTable = JdbcFence.DEFAULT_TABLE;
        private FencingListener listener = FencingListener.NONE;

        private Builder(String table, List<String> keyColumns) {
            this.table = table;
            this.keyColumns = keyColumns;
        }

        /**
         * The table's token column ({@code BIGINT NOT NULL}; an unquoted SQL name, not a key column);
         * default {@value #DEFAULT_TOKEN_COLUMN}.
         */
        public Builder tokenColumn(String tokenColumn) {
            Sql.requireColumn("token column", tokenColumn);
            if (keyColumns.stream().anyMatch(tokenColumn::equalsIgnoreCase)) {
                throw new IllegalArgumentException("token column '" + tokenColumn + "' is a key column of table '" + table
                        + "' " + keyColumns + "; name the column that holds the token, apart from the key");
            }
            this.tokenColumn = tokenColumn;
            return this;
        }

        /**
         * Which tokens pass the row's mark: {@link Policy#MONOTONIC} (the default, {@code <=}) or
         * {@link Policy#STRICT} ({@code <}).
         */
        public Builder policy(Policy policy) {
            this.policy = Checks.requireNonNull("policy", policy);
            return this;
        }

        /**
         * The fence table that keeps the lock's fence row and the rows' fence entries (same columns
         * as {@value JdbcFence#DEFAULT_TABLE}; an unquoted SQL name): unqualified (the default,
         * {@value JdbcFence#DEFAULT_TABLE}), it is looked up in the data table's schema (database);
         * qualified, where named.
         */
        public Builder fenceTable(String fenceTable) {
            this.fenceTable = Sql.requireTable(fenceTable);
            return this;
        }

        /**
         * Where every refused write ({@link FencingListener#onStaleWriteRejected}) is reported; a
         * refusal is also logged at WARN whatever the listener. Default: none.
         */
        public Builder listener(FencingListener listener) {
            this.listener = Checks.requireNonNull("listener", listener);
            return this;
        }

        /** The guard. Touches no database: the table is described on first use. */
        public RowGuard build() {
            return new RowGuard(table, keyColumns, tokenColumn, policy, fenceTable, SafeListener.of(listener));
        }
    }
}
