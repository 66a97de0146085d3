package dev.fencing.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Plain DAO statements on a test table {@code (k, v, version)}: no token anywhere, as existing
 * application code would write it; the fence the test puts around them does the fencing.
 */
record KeyValueDao(String table) {

    int update(Connection connection, String key, String value, Long version) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + table + " SET v = ?, version ="
                + " version + 1 WHERE k = ?" + (version == null ? "" : " AND version = ?"))) {
            statement.setString(1, value);
            statement.setString(2, key);
            if (version != null) {
                statement.setLong(3, version);
            }
            return statement.executeUpdate();
        }
    }

    void insert(Connection connection, String key, String value) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO " + table + " (k, v, version) VALUES (?, ?, 1)")) {
            statement.setString(1, key);
            statement.setString(2, value);
            statement.executeUpdate();
        }
    }

    /** Inserts unless the key exists; the fence row's lock serializes this key's writers, so a plain check is enough. */
    boolean insertIfAbsent(Connection connection, String key, String value) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM " + table + " WHERE k = ?")) {
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

    void delete(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("DELETE FROM " + table + " WHERE k = ?")) {
            statement.setString(1, key);
            statement.executeUpdate();
        }
    }

    /** Thrown inside a fenced callback when the item changed since it was read: the fence rolls back too. */
    static final class Conflict extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Conflict() {
            super("the item changed since it was read", null, false, false);
        }
    }
}
