package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What the catalog says about a {@link RowGuard}'s table in one database: the name it resolves
 * to, how each key column compares and how much it holds, that the token column is
 * {@code BIGINT NOT NULL}, and which fence table keeps its entries (in the table's own schema unless
 * named qualified) and that it compares its keys exactly. Described once per database and remembered.
 */
final class TableShape {

    /**
     * A row's key as the database reads it: the values to bind, and (computed on first use: the
     * guarded UPDATE of an existing row does not need it) the name of the row's fence entry.
     */
    final class RowKey {
        private final Map<String, ?> key;
        private final List<String> keyColumns;
        private final List<Object> values;
        private @Nullable String resource;

        private RowKey(Map<String, ?> key, List<String> keyColumns, List<Object> values) {
            this.key = key;
            this.keyColumns = keyColumns;
            this.values = values;
        }

        List<Object> values() {
            return values;
        }

        String resource() {
            if (resource == null) {
                resource = entryName(key, keyColumns);
            }
            return resource;
        }
    }

    private final SqlDialect dialect;
    private final String canonicalName;
    private final String quotedName;
    private final List<KeyColumn> keys;
    private final String fenceTable;
    /** The guarded UPDATE per sorted column list; bounded against unbounded variety. */
    private final Map<List<String>, String> updateSql = new ConcurrentHashMap<>();
    /** MySQL/MariaDB: whether this database's connections were seen to count matched rows (see {@link MatchedRows}). */
    private volatile boolean countsMatchedRows;

    private TableShape(SqlDialect dialect, Catalog.Table table, List<KeyColumn> keys, Catalog.Table fence) {
        this.dialect = dialect;
        this.canonicalName = table.qualifiedName();
        this.quotedName = dialect.quote(table.schema()) + "." + dialect.quote(table.name());
        this.keys = keys;
        this.fenceTable = dialect.quote(fence.schema()) + "." + dialect.quote(fence.name());
        this.countsMatchedRows = dialect == SqlDialect.POSTGRESQL;
    }

    /**
     * Reads the catalog.
     *
     * @throws IllegalStateException if the table, a key or the token column is missing, a key column
     *     does not compare exactly, the token column is not {@code BIGINT NOT NULL}, or the fence table
     *     is missing, does not compare exactly or lacks the namespaces; each message names the fix
     */
    static TableShape describe(Connection connection, SqlDialect dialect, String table, List<String> keyColumns,
            String tokenColumn, String fenceTable) throws SQLException {
        Catalog.Table found = Catalog.table(connection, dialect, table, tokenColumn);
        List<KeyColumn> keys = new ArrayList<>();
        for (String name : keyColumns) {
            Catalog.Column column = found.columns().get(name.toLowerCase(Locale.ROOT));
            if (column == null) {
                throw new IllegalStateException("table '" + found.qualifiedName() + "' has no key column '" + name + "'");
            }
            keys.add(Catalog.keyColumn(connection, dialect, found, column));
        }
        Catalog.Column token = found.columns().get(tokenColumn.toLowerCase(Locale.ROOT));
        if (token == null) {
            throw new IllegalStateException("a column of table '" + table + "' is missing (the token column is '"
                    + tokenColumn + "'). " + SchemaProblems.remedy(table, tokenColumn));
        }
        boolean bigint = token.type().equals("int8") || token.type().startsWith("bigint");
        if (!bigint || !token.notNull()) {
            throw new IllegalStateException("token column '" + tokenColumn + "' of table '" + found.qualifiedName()
                    + "' is " + token.type() + (token.notNull() ? " NOT NULL" : " NULL") + "; it must be BIGINT NOT NULL"
                    + " (64-bit tokens, and every row carries one). " + SchemaProblems.remedy(table, tokenColumn));
        }
        // an unqualified fence table is the one in the data table's schema, on every connection: one
        // found through a connection's search_path could be another, without the deleted rows' marks
        Catalog.Table fence = fenceTable.indexOf('.') >= 0
                ? Catalog.requireExactKey(connection, dialect, fenceTable, "resource")
                : Catalog.requireExactKeyIn(connection, dialect, found.schema(), fenceTable, "resource");
        FenceRows.requireNamespaces(fence, dialect);
        return new TableShape(dialect, found, List.copyOf(keys), fence);
    }

    SqlDialect dialect() {
        return dialect;
    }

    /** {@code schema.table} as the catalog names it: one name for {@code accounts}, {@code public.accounts}, {@code Accounts}. */
    String canonicalName() {
        return canonicalName;
    }

    /** The resolved name quoted for SQL, so statements reach the table the fence entries are named after. */
    String quotedName() {
        return quotedName;
    }

    /** The fence table, resolved and quoted: the data table's schema's unless one was named qualified. */
    String fenceTable() {
        return fenceTable;
    }

    /** The SQL built by {@code build} for {@code columns}, remembered for up to 64 column lists. */
    String updateSql(List<String> columns, java.util.function.Function<List<String>, String> build) {
        String sql = updateSql.get(columns);
        if (sql == null) {
            sql = build.apply(columns);
            if (updateSql.size() < 64) {
                updateSql.putIfAbsent(columns, sql);
            }
        }
        return sql;
    }

    /**
     * The row's key, each value bound as the database reads it.
     *
     * @throws IllegalArgumentException for a value of the wrong kind
     */
    RowKey rowKey(Map<String, ?> key, List<String> keyColumns) {
        List<Object> values = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            values.add(keys.get(i).bind(keyValue(key, keyColumns.get(i))));
        }
        return new RowKey(key, keyColumns, values);
    }

    /** The value of {@code column} in {@code key}, which {@link RowGuard} checked holds no null key value. */
    private static Object keyValue(Map<String, ?> key, String column) {
        return Objects.requireNonNull(key.get(column), "RowGuard refuses a null key value");
    }

    /**
     * The row's fence entry {@code <schema.table>:<canonical values>}, in which a {@code ','} or
     * {@code '\'} inside a value is escaped with {@code '\'}, so that ({@code "a,b"}, {@code "c"}) and
     * ({@code "a"}, {@code "b,c"}) differ.
     *
     * @throws IllegalArgumentException for a name longer than a fence entry allows
     */
    private String entryName(Map<String, ?> key, List<String> keyColumns) {
        StringBuilder resource = new StringBuilder(canonicalName).append(':');
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                resource.append(',');
            }
            String canonical = keys.get(i).canonical(keyValue(key, keyColumns.get(i)));
            for (int c = 0; c < canonical.length(); c++) {
                char ch = canonical.charAt(c);
                if (ch == ',' || ch == '\\') {
                    resource.append('\\');
                }
                resource.append(ch);
            }
        }
        return FenceRows.requireResource(resource.toString());
    }

    boolean countsMatchedRows() {
        return countsMatchedRows;
    }

    void sawMatchedRows() {
        countsMatchedRows = true;
    }
}
