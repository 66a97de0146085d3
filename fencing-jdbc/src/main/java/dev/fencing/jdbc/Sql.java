package dev.fencing.jdbc;

import dev.fencing.core.Policy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/** Statement execution with bound values, and the validation of identifiers spliced into SQL. */
final class Sql {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final Pattern TABLE = Pattern.compile("(" + NAME.pattern() + "\\.)?" + NAME.pattern());

    private Sql() {}

    /** The comparison that lets {@code stored OP presented} pass under {@code policy}. */
    static String operator(Policy policy) {
        return policy == Policy.STRICT ? "<" : "<=";
    }

    static String requireTable(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be an unquoted SQL name, optionally schema-qualified (letters,"
                    + " digits, '_', up to 63 characters each), got '" + table + "'");
        }
        return table;
    }

    static String requireColumn(String what, String column) {
        if (column == null || !NAME.matcher(column).matches()) {
            throw new IllegalArgumentException(what + " must be an unquoted SQL name (letters, digits, '_', up to 63"
                    + " characters), got '" + column + "'");
        }
        return column;
    }

    static int update(Connection connection, String sql, List<?> params) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, params)) {
            return statement.executeUpdate();
        }
    }

    /** The first column of the first row as a long, if there is a row. */
    static OptionalLong queryLong(Connection connection, String sql, List<?> params) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, params); ResultSet rows = statement.executeQuery()) {
            return rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty();
        }
    }

    static PreparedStatement prepare(Connection connection, String sql, List<?> params) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < params.size(); i++) {
                statement.setObject(i + 1, params.get(i));
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }
}
