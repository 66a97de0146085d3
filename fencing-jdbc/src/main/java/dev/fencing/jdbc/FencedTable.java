package dev.fencing.jdbc;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
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
 * FencedTable accounts = FencedTable.of("accounts", "id");
 * accounts.update(connection, lease.token(), Map.of("id", 7), Map.of("balance", 150));
 * // UPDATE accounts SET balance = ?, fencing_token = ? WHERE id = ? AND fencing_token <= ?
 * }</pre>
 *
 * <table>
 *   <caption>What each operation runs</caption>
 *   <tr><th>operation</th><th>SQL</th><th>when nothing matched</th></tr>
 *   <tr><td>{@link #update}</td><td>one guarded {@code UPDATE}</td>
 *       <td>reads the row's token: stale → {@link StaleTokenException}; no row → {@code false}</td></tr>
 *   <tr><td>{@link #upsert}</td><td>the row's fence entry, then the guarded {@code UPDATE}, or an
 *       {@code INSERT} if the row is absent</td>
 *       <td>stale → {@link StaleTokenException}</td></tr>
 *   <tr><td>{@link #insert}</td><td>the row's fence entry, then {@code INSERT}</td>
 *       <td>row exists → {@code false}, nothing written; stale → {@link StaleTokenException}</td></tr>
 *   <tr><td>{@link #delete}</td><td>the row's fence entry, then a guarded {@code DELETE}</td>
 *       <td>stale → {@link StaleTokenException}; no row → {@code false}</td></tr>
 *   <tr><td>{@link #execute}</td><td>your statement, with {@code :fencing_token} bound to the token</td>
 *       <td>stale → {@link StaleTokenException}; otherwise 0</td></tr>
 * </table>
 *
 * <p>The row's fence entry is a row of the fence table ({@code fencing_fence}) named
 * {@code <table>:<key values>}, advanced to the token with the conditional upsert of
 * {@link JdbcFence}. Every insert, upsert and delete of the row passes it first, so they serialize
 * on its lock, and it outlives the row: its token is the deleted row's mark, and a zombie cannot
 * re-create a row a newer holder deleted. The fence table thus keeps one small row per row ever
 * created or deleted through the guard. These operations need several statements: on a
 * connection in auto-commit mode they run in their own transaction; inside your transaction they
 * join it (roll back on an exception). With Jdbi, pass {@code handle.getConnection()}.
 * Identifiers are validated when the table is described; values are always bound. Immutable and
 * thread-safe.
 */
public final class FencedTable {

    /** The marker a hand-written statement uses for the token. */
    public static final String TOKEN_MARKER = ":fencing_token";

    private final String table;
    private final List<String> keyColumns;
    private final String tokenColumn;
    private final Policy policy;
    private final String fenceTable;
    /** Column sets already validated, so a repeated write checks no names; bounded against unbounded variety. */
    private final Map<Set<String>, List<String>> checkedColumns = new ConcurrentHashMap<>();
    /** The guarded UPDATE per validated, sorted column list; bounded like checkedColumns. */
    private final Map<List<String>, String> updateSql = new ConcurrentHashMap<>();

    private static final int MAX_CACHED_COLUMN_SETS = 64;

    private FencedTable(String table, List<String> keyColumns, String tokenColumn, Policy policy, String fenceTable) {
        this.table = table;
        this.keyColumns = keyColumns;
        this.tokenColumn = tokenColumn;
        this.policy = policy;
        this.fenceTable = fenceTable;
    }

    /** {@code table} keyed by {@code keyColumns}, token column {@code fencing_token}, {@link Policy#MONOTONIC}. */
    public static FencedTable of(String table, String... keyColumns) {
        Sql.requireTable(table);
        if (keyColumns == null || keyColumns.length == 0) {
            throw new IllegalArgumentException("name the key column(s) of table '" + table + "'");
        }
        List<String> keys = new ArrayList<>();
        for (String key : keyColumns) {
            keys.add(Sql.requireColumn("key column", key));
        }
        return new FencedTable(table, List.copyOf(keys), "fencing_token", Policy.MONOTONIC, JdbcFence.DEFAULT_TABLE);
    }

    /** The same table with another token column. */
    public FencedTable withTokenColumn(String column) {
        return new FencedTable(table, keyColumns, Sql.requireColumn("token column", column), policy, fenceTable);
    }

    /** The same table under another policy. */
    public FencedTable withPolicy(Policy policy) {
        if (policy == null) {
            throw new IllegalArgumentException("policy must not be null");
        }
        return new FencedTable(table, keyColumns, tokenColumn, policy, fenceTable);
    }

    /** The same table keeping deleted rows' marks in another fence table. */
    public FencedTable withFenceTable(String fenceTable) {
        return new FencedTable(table, keyColumns, tokenColumn, policy, Sql.requireTable(fenceTable));
    }

    /**
     * Sets {@code values} and the token on the row with {@code key}, if the row's token passes the policy.
     *
     * @return true if the row was updated, false if there is no row with that key
     * @throws StaleTokenException if the row carries a newer token; nothing was written
     */
    public boolean update(Connection connection, FencingToken token, Map<String, ?> key, Map<String, ?> values)
            throws SQLException {
        checkToken(token);
        List<String> keys = keyColumns(key);
        List<String> columns = valueColumns(values);
        SqlDialect dialect = SqlDialect.of(connection);
        try {
            if (guardedUpdate(connection, token, key, keys, values, columns) > 0) {
                return true;
            }
            OptionalLong mark = rowToken(connection, key, keys);
            refuseIfStale(token, key, mark);
            return false;
        } catch (SQLException e) {
            throw SchemaProblems.check(dialect, e, table, tokenColumn);
        }
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
        inTransaction(connection, () -> {
            // every writer that may create or delete this row passes its fence entry first: they
            // serialize on that row lock, so a delete and a re-create can never interleave
            FenceRows.advance(connection, fenceTable, rowResource(key, keys), token, policy);
            for (int attempt = 0; attempt < 3; attempt++) {
                if (guardedUpdate(connection, token, key, keys, values, columns) > 0) {
                    return null;
                }
                OptionalLong mark = rowToken(connection, key, keys);
                if (mark.isPresent()) {
                    refuseIfStale(token, key, mark);
                    continue; // the row changed between the two statements: try again
                }
                if (insert(connection, token, key, keys, values, columns)) {
                    return null;
                }
            }
            throw new IllegalStateException("upsert of " + describe(key) + " kept racing with other writers; retry it");
        });
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
        return inTransaction(connection, () -> {
            Savepoint before = connection.setSavepoint();
            FenceRows.advance(connection, fenceTable, rowResource(key, keys), token, policy);
            if (insert(connection, token, key, keys, values, columns)) {
                connection.releaseSavepoint(before);
                return true;
            }
            connection.rollback(before); // the row exists: leave the fence entry as it was too
            return false;
        });
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
        return inTransaction(connection, () -> {
            // the mark outlives the row (also for a row that was never there): a zombie cannot create it later
            FenceRows.advance(connection, fenceTable, rowResource(key, keys), token, policy);
            List<Object> params = keyValues(key, keys);
            params.add(token.value());
            int deleted = Sql.update(connection, "DELETE FROM " + table + " WHERE " + keyCondition(keys) + " AND "
                    + tokenColumn + " " + Sql.operator(policy) + " ?", params);
            if (deleted == 0) {
                refuseIfStale(token, key, rowToken(connection, key, keys));
            }
            return deleted > 0;
        });
    }

    /**
     * Runs a hand-written statement on this table, binding {@value #TOKEN_MARKER} to the token
     * wherever it appears: the statement must both set and check the token, e.g.
     * {@code UPDATE accounts SET balance = balance - ?, fencing_token = :fencing_token WHERE id = ?
     * AND fencing_token <= :fencing_token}. The {@code ?} parameters are {@code params}, in order.
     *
     * @param key the key of the row the statement writes, to tell a stale token from your own
     *     condition not matching
     * @return the update count; 0 if your own condition did not match
     * @throws StaleTokenException if nothing matched because the row carries a newer token
     */
    public int execute(Connection connection, FencingToken token, Map<String, ?> key, String sql, Object... params)
            throws SQLException {
        checkToken(token);
        List<String> keys = keyColumns(key);
        MarkedStatement statement = MarkedStatement.parse(sql, TOKEN_MARKER, tokenColumn);
        SqlDialect dialect = SqlDialect.of(connection);
        try {
            int count = Sql.update(connection, statement.sql(), statement.bind(List.of(params), token.value()));
            if (count == 0) {
                refuseIfStale(token, key, rowToken(connection, key, keys));
            }
            return count;
        } catch (SQLException e) {
            throw SchemaProblems.check(dialect, e, table, tokenColumn);
        }
    }

    /** The row's token, or the mark its fenced delete left; empty if neither exists. */
    public OptionalLong highWaterMark(Connection connection, Map<String, ?> key) throws SQLException {
        List<String> keys = keyColumns(key);
        OptionalLong row = rowToken(connection, key, keys);
        if (row.isPresent()) {
            return row;
        }
        return Sql.queryLong(connection, "SELECT token FROM " + fenceTable + " WHERE resource = ?",
                List.of(rowResource(key, keys)));
    }

    private int guardedUpdate(Connection connection, FencingToken token, Map<String, ?> key, List<String> keys,
            Map<String, ?> values, List<String> columns) throws SQLException {
        List<Object> params = new ArrayList<>(columns.size() + keys.size() + 2);
        for (String column : columns) {
            params.add(values.get(column));
        }
        params.add(token.value());
        params.addAll(keyValues(key, keys));
        params.add(token.value());
        String sql = updateSql.get(columns);
        if (sql == null) {
            sql = guardedUpdateSql(columns);
            if (updateSql.size() < MAX_CACHED_COLUMN_SETS) {
                updateSql.putIfAbsent(columns, sql);
            }
        }
        return Sql.update(connection, sql, params);
    }

    private String guardedUpdateSql(List<String> columns) {
        StringJoiner set = new StringJoiner(", ");
        columns.forEach(column -> set.add(column + " = ?"));
        set.add(tokenColumn + " = ?");
        return "UPDATE " + table + " SET " + set + " WHERE " + keyCondition(keyColumns) + " AND " + tokenColumn + " "
                + Sql.operator(policy) + " ?";
    }

    private boolean insert(Connection connection, FencingToken token, Map<String, ?> key, List<String> keys,
            Map<String, ?> values, List<String> columns) throws SQLException {
        List<String> names = new ArrayList<>(keys);
        names.addAll(columns);
        names.add(tokenColumn);
        List<Object> params = keyValues(key, keys);
        columns.forEach(column -> params.add(values.get(column)));
        params.add(token.value());
        String sql = "INSERT INTO " + table + " (" + String.join(", ", names) + ") VALUES ("
                + String.join(", ", java.util.Collections.nCopies(names.size(), "?")) + ")";
        Savepoint beforeInsert = connection.setSavepoint();
        try {
            Sql.update(connection, sql, params);
            connection.releaseSavepoint(beforeInsert);
            return true;
        } catch (SQLException e) {
            if (!SqlDialect.of(connection).isDuplicateKey(e)) {
                throw e;
            }
            connection.rollback(beforeInsert); // someone inserted it first: update it on the next round
            return false;
        }
    }

    private OptionalLong rowToken(Connection connection, Map<String, ?> key, List<String> keys) throws SQLException {
        return Sql.queryLong(connection, "SELECT " + tokenColumn + " FROM " + table + " WHERE " + keyCondition(keys),
                keyValues(key, keys));
    }

    private void refuseIfStale(FencingToken token, Map<String, ?> key, OptionalLong mark) {
        if (mark.isPresent() && !policy.accepts(token.value(), mark.getAsLong())) {
            throw StaleTokenException.of(describe(key), token, mark.getAsLong(), policy);
        }
    }

    private <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
        SqlDialect dialect = SqlDialect.of(connection);
        boolean ownTransaction = connection.getAutoCommit();
        if (ownTransaction) {
            connection.setAutoCommit(false);
        }
        try {
            T result = work.run();
            if (ownTransaction) {
                connection.commit();
            }
            return result;
        } catch (SQLException | RuntimeException | Error e) {
            if (ownTransaction) {
                try {
                    connection.rollback();
                } catch (SQLException rollbackFailed) {
                    e.addSuppressed(rollbackFailed);
                }
            }
            if (e instanceof SQLException sql) {
                throw SchemaProblems.check(dialect, sql, table, tokenColumn, fenceTable);
            }
            throw e;
        } finally {
            if (ownTransaction) {
                connection.setAutoCommit(true);
            }
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
        if (checkedColumns.size() < MAX_CACHED_COLUMN_SETS) {
            checkedColumns.putIfAbsent(Set.copyOf(checked), checked);
        }
        return checked;
    }

    private static List<Object> keyValues(Map<String, ?> key, List<String> keys) {
        List<Object> values = new ArrayList<>();
        keys.forEach(column -> values.add(key.get(column)));
        return values;
    }

    private static String keyCondition(List<String> keys) {
        StringJoiner where = new StringJoiner(" AND ");
        keys.forEach(column -> where.add(column + " = ?"));
        return where.toString();
    }

    private String rowResource(Map<String, ?> key, List<String> keys) {
        StringJoiner resource = new StringJoiner(",", table + ":", "");
        keys.forEach(column -> resource.add(String.valueOf(key.get(column))));
        return FenceRows.requireResource(resource.toString());
    }

    private String describe(Map<String, ?> key) {
        return table + key;
    }

    private static void checkToken(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T run() throws SQLException;
    }
}
