package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads from the database's catalog what a table name resolves to and how its columns compare:
 * PostgreSQL through the {@code search_path} ({@code to_regclass}); MySQL/MariaDB in the named or
 * current database, by its {@code lower_case_table_names} rule.
 */
final class Catalog {

    /**
     * A table as the catalog names it, its columns by lower-case name, and (MySQL/MariaDB) the
     * clauses of its enforced check constraints, as the server prints them.
     */
    record Table(String schema, String name, Map<String, Column> columns, List<String> checks) {
        String qualifiedName() {
            return schema + "." + name;
        }
    }

    /**
     * One column: its type, nullability, (for text) collation, how much it holds (at most
     * {@code maxChars} characters and {@code maxBytes} bytes, -1 where the catalog sets no limit), and
     * whether it has a default.
     */
    record Column(String name, String type, boolean notNull, @Nullable String charset, @Nullable String collation,
            boolean deterministic, long maxChars, long maxBytes, boolean hasDefault) {}

    private static final Pattern COLLATION_NAME = Pattern.compile("[A-Za-z0-9_]{1,64}");

    private Catalog() {}

    /**
     * The table {@code table} (an unquoted, optionally schema-qualified name) resolves to on
     * {@code connection}.
     *
     * @throws IllegalStateException if there is no such table, naming the migration that creates it
     *     ({@code tokenColumn} null for the toolkit's own tables)
     */
    static Table table(Connection connection, SqlDialect dialect, String table, @Nullable String tokenColumn)
            throws SQLException {
        Table found = dialect == SqlDialect.POSTGRESQL ? postgres(connection, table) : mysql(connection, table);
        if (found == null) {
            throw SchemaProblems.missingTable(table, tokenColumn, "as seen from this connection's "
                    + (dialect == SqlDialect.POSTGRESQL ? "search_path" : "current database"));
        }
        return found;
    }

    /**
     * Checks that {@code column} of the toolkit's {@code table} compares keys byte for byte.
     *
     * @return the table as the catalog names it
     * @throws IllegalStateException if the table is missing, or from an install whose keys compare
     *     otherwise (MySQL's utf8mb4_bin: 'a' = 'a '), naming the migration that converts it
     */
    static Table requireExactKey(Connection connection, SqlDialect dialect, String table, String column) throws SQLException {
        Table found = table(connection, dialect, table, null);
        Column key = found.columns().get(column);
        KeyColumn.Kind kind = key == null ? null
                : dialect == SqlDialect.POSTGRESQL ? postgresKind(key) : mysqlKind(connection, key);
        if (kind != KeyColumn.Kind.TEXT_EXACT) {
            throw new IllegalStateException("column '" + column + "' of the toolkit's table '" + table + "' "
                    + (key == null ? "is missing" : "(" + key.type() + (key.collation() == null ? "" : ", collation "
                            + key.collation()) + ") does not compare keys byte for byte, so keys that differ in case or"
                            + " trailing spaces could share one entry")
                    + ". Run FencingMigrations.migrate(dataSource) from the 'migrations' module (or your Flyway run with"
                    + " Vendor.<yours>.location()) to convert it");
        }
        return found;
    }

    /**
     * The toolkit's {@code table} in {@code schema}, for the row guard: its fence entries live next
     * to the data table, whatever a connection's search_path or current database finds first.
     *
     * @throws IllegalStateException if {@code schema} has no such table (naming the migration), or it
     *     does not compare keys byte for byte
     */
    static Table requireExactKeyIn(Connection connection, SqlDialect dialect, String schema, String table, String column)
            throws SQLException {
        String qualified = (dialect == SqlDialect.POSTGRESQL ? dialect.quote(schema) : schema) + "." + table;
        Table found = dialect == SqlDialect.POSTGRESQL ? postgres(connection, qualified) : mysql(connection, qualified);
        if (found == null) {
            throw SchemaProblems.missingTable(schema + "." + table, null, "the row guard keeps a table's fence entries in"
                    + " the table's own " + (dialect == SqlDialect.POSTGRESQL ? "schema" : "database") + ", '" + schema
                    + "', never in one a connection's " + (dialect == SqlDialect.POSTGRESQL ? "search_path" : "current"
                    + " database") + " happens to find; migrate that " + (dialect == SqlDialect.POSTGRESQL ? "schema"
                    : "database") + ", or name a fence table with RowGuard.builder(...).fenceTable(\"schema.table\")");
        }
        return requireExactKey(connection, dialect, qualified, column);
    }

    /**
     * How {@code column} of {@code table} compares.
     *
     * @throws IllegalStateException if no exact rule is known for it, saying which column types are supported
     */
    static KeyColumn keyColumn(Connection connection, SqlDialect dialect, Table table, Column column) throws SQLException {
        String where = "key column '" + column.name() + "' of table '" + table.qualifiedName() + "' (" + column.type()
                + (column.collation() == null ? "" : ", collation " + column.collation()) + ")";
        KeyColumn.Kind kind = dialect == SqlDialect.POSTGRESQL ? postgresKind(column) : mysqlKind(connection, column);
        if (kind == null) {
            throw new IllegalStateException(where + " does not compare values exactly, or in a way the toolkit can"
                    + " reproduce: the database could treat differently spelled keys (case, accents, trailing spaces,"
                    + " number formats) as one row, while the row's fence entry would not. Use an integer, a UUID, or text"
                    + " with a binary collation: VARCHAR ... COLLATE utf8mb4_nopad_bin on MariaDB, utf8mb4_0900_bin on"
                    + " MySQL 8, VARBINARY; on PostgreSQL text/varchar with a deterministic collation");
        }
        String type = column.type();
        boolean countsChars = type.equals("varchar") || type.equals("char") || type.equals("bpchar");
        boolean countsBytes = dialect == SqlDialect.MYSQL && !countsChars; // VARBINARY, BLOB and TEXT hold n bytes
        long maxChars = countsChars ? column.maxChars() : -1;
        long maxBytes = countsBytes ? column.maxBytes() : -1;
        String description = "key column '" + column.name() + "' of table '" + table.qualifiedName() + "' ("
                + type + (maxChars > 0 ? "(" + maxChars + ")" : maxBytes > 0 ? ", " + maxBytes + " bytes" : "") + ")";
        java.math.BigInteger[] range = kind == KeyColumn.Kind.INTEGER ? integerRange(type) : new java.math.BigInteger[2];
        return new KeyColumn(column.name(), kind, description, range[0], range[1], maxChars, maxBytes);
    }

    /** The smallest and largest value of an integer type: {@code {min, max}}. */
    private static java.math.BigInteger[] integerRange(String type) {
        boolean unsigned = type.endsWith(" unsigned");
        int bits = switch (type.replace(" unsigned", "")) {
            case "int2", "smallint" -> 16;
            case "int4", "int" -> 32;
            case "tinyint" -> 8;
            case "mediumint" -> 24;
            default -> 64; // int8, bigint
        };
        java.math.BigInteger two = java.math.BigInteger.TWO;
        return unsigned
                ? new java.math.BigInteger[] {java.math.BigInteger.ZERO, two.pow(bits).subtract(java.math.BigInteger.ONE)}
                : new java.math.BigInteger[] {two.pow(bits - 1).negate(), two.pow(bits - 1).subtract(java.math.BigInteger.ONE)};
    }

    private static KeyColumn.@Nullable Kind postgresKind(Column column) {
        return switch (column.type()) {
            case "int2", "int4", "int8" -> KeyColumn.Kind.INTEGER;
            case "uuid" -> KeyColumn.Kind.UUID;
            case "text", "varchar" -> column.deterministic() ? KeyColumn.Kind.TEXT_EXACT : null;
            case "bpchar" -> column.deterministic() ? KeyColumn.Kind.TEXT_PAD_SPACE : null;
            default -> null;
        };
    }

    private static KeyColumn.@Nullable Kind mysqlKind(Connection connection, Column column) throws SQLException {
        String type = column.type();
        if (type.matches("(tiny|small|medium|big)?int( unsigned)?")) {
            return KeyColumn.Kind.INTEGER;
        }
        if (type.equals("uuid")) {
            return KeyColumn.Kind.UUID_TEXT;
        }
        if (type.equals("varbinary") || type.endsWith("blob")) {
            return KeyColumn.Kind.TEXT_EXACT;
        }
        boolean text = type.equals("varchar") || type.equals("char") || type.endsWith("text");
        String collation = column.collation();
        if (!text || collation == null || !collation.endsWith("_bin")) {
            return null; // binary(n) pads with 0x00; _ci, _ai, _cs collations fold spellings together
        }
        // information_schema names the character set of every character column
        String charset = Objects.requireNonNull(column.charset(), "a text column with a collation has a character set");
        if (padsWithSpaces(connection, charset, collation)) {
            return KeyColumn.Kind.TEXT_PAD_SPACE;
        }
        return type.equals("char") ? null : KeyColumn.Kind.TEXT_EXACT; // CHAR(n) strips what NO PAD would compare
    }

    /** Asks the server: the name does not tell (MariaDB's utf8mb4_0900_bin is an alias of the PAD SPACE utf8mb4_bin). */
    private static boolean padsWithSpaces(Connection connection, String charset, String collation) throws SQLException {
        if (!COLLATION_NAME.matcher(charset).matches() || !COLLATION_NAME.matcher(collation).matches()) {
            throw new IllegalStateException("unexpected character set or collation name '" + charset + "', '" + collation + "'");
        }
        String a = "CONVERT('a' USING " + charset + ") COLLATE " + collation;
        String aSpace = "CONVERT('a ' USING " + charset + ") COLLATE " + collation;
        return Sql.queryLong(connection, "SELECT " + a + " = " + aSpace, List.of()).orElse(1) == 1;
    }

    private static @Nullable Table postgres(Connection connection, String table) throws SQLException {
        // typmod of varchar(n)/char(n) is n + 4; -1 (text, varchar without n) holds any length
        String sql = "SELECT n.nspname, c.relname, a.attname, b.typname, a.attnotnull, co.collname, co.collisdeterministic,"
                + " CASE WHEN a.atttypmod < 0 AND t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END, a.atthasdef"
                + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
                + " LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid"
                + " LEFT JOIN pg_catalog.pg_type b ON b.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END"
                + " LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation"
                + " WHERE c.oid = pg_catalog.to_regclass(?) ORDER BY a.attnum";
        try (PreparedStatement statement = Sql.prepare(connection, sql, List.of(table));
                ResultSet rows = statement.executeQuery()) {
            Table found = null;
            while (rows.next()) {
                if (found == null) {
                    found = new Table(rows.getString(1), rows.getString(2), new LinkedHashMap<>(), List.of());
                }
                if (rows.getString(3) != null) {
                    String type = rows.getString(4);
                    int typmod = rows.getInt(8);
                    long maxChars = (type.equals("varchar") || type.equals("bpchar")) && typmod > 4 ? typmod - 4 : -1;
                    found.columns().put(rows.getString(3), new Column(rows.getString(3), type, rows.getBoolean(5), null,
                            rows.getString(6), rows.getString(6) == null || rows.getBoolean(7), maxChars, -1, rows.getBoolean(9)));
                }
            }
            return found;
        }
    }

    private static @Nullable Table mysql(Connection connection, String table) throws SQLException {
        int dot = table.indexOf('.');
        String schema = dot < 0 ? null : table.substring(0, dot);
        String name = table.substring(dot + 1);
        List<String[]> candidates = new ArrayList<>();
        boolean foldsCase = false;
        try (PreparedStatement statement = Sql.prepare(connection, "SELECT TABLE_SCHEMA, TABLE_NAME,"
                + " @@lower_case_table_names FROM information_schema.TABLES WHERE TABLE_SCHEMA = COALESCE(?, DATABASE())"
                + " AND TABLE_NAME = ?", java.util.Arrays.asList(schema, name)); ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                candidates.add(new String[] {rows.getString(1), rows.getString(2)});
                foldsCase = rows.getInt(3) != 0;
            }
        }
        String[] match = null;
        for (String[] candidate : candidates) {
            if (candidate[1].equals(name) && (schema == null || candidate[0].equals(schema))) {
                match = candidate;
            }
        }
        if (match == null && foldsCase && candidates.size() == 1) {
            match = candidates.get(0);
        }
        if (match == null) {
            return null;
        }
        Table found = new Table(match[0], match[1], new LinkedHashMap<>(), checks(connection, match[0], match[1]));
        try (PreparedStatement statement = Sql.prepare(connection, "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE,"
                + " CHARACTER_SET_NAME, COLLATION_NAME, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, COLUMN_DEFAULT IS NOT NULL FROM information_schema.COLUMNS WHERE BINARY TABLE_SCHEMA = BINARY ?"
                + " AND BINARY TABLE_NAME = BINARY ? ORDER BY ORDINAL_POSITION", List.of(match[0], match[1]));
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                String columnType = rows.getString(3).toLowerCase(Locale.ROOT);
                String type = rows.getString(2).toLowerCase(Locale.ROOT) + (columnType.contains("unsigned") ? " unsigned" : "");
                String column = rows.getString(1).toLowerCase(Locale.ROOT); // column names ignore case in MySQL
                long maxChars = rows.getObject(7) == null ? -1 : rows.getLong(7);
                long maxBytes = rows.getObject(8) == null ? -1 : rows.getLong(8);
                found.columns().put(column, new Column(rows.getString(1), type, "NO".equals(rows.getString(4)),
                        rows.getString(5), rows.getString(6), true, maxChars, maxBytes, rows.getBoolean(9)));
            }
        }
        return found;
    }

    /**
     * The clauses of the table's enforced check constraints. MariaDB names check constraints per
     * table (its CHECK_CONSTRAINTS has TABLE_NAME); MySQL names them per schema and marks the
     * enforced ones in TABLE_CONSTRAINTS.ENFORCED.
     */
    private static List<String> checks(Connection connection, String schema, String table) throws SQLException {
        boolean mariaDb;
        try (PreparedStatement statement = Sql.prepare(connection, "SELECT VERSION()", List.of());
                ResultSet rows = statement.executeQuery()) {
            mariaDb = rows.next() && rows.getString(1).toLowerCase(Locale.ROOT).contains("mariadb");
        }
        String sql = mariaDb
                ? "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE BINARY CONSTRAINT_SCHEMA = BINARY ?"
                        + " AND BINARY TABLE_NAME = BINARY ?"
                : "SELECT cc.CHECK_CLAUSE FROM information_schema.TABLE_CONSTRAINTS tc JOIN information_schema.CHECK_CONSTRAINTS"
                        + " cc ON cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA AND cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME"
                        + " WHERE BINARY tc.TABLE_SCHEMA = BINARY ? AND BINARY tc.TABLE_NAME = BINARY ?"
                        + " AND tc.CONSTRAINT_TYPE = 'CHECK' AND tc.ENFORCED = 'YES'";
        List<String> clauses = new ArrayList<>();
        try (PreparedStatement statement = Sql.prepare(connection, sql, List.of(schema, table));
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                clauses.add(rows.getString(1));
            }
        }
        return clauses;
    }
}
