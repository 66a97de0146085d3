package dev.fencing.cli.backends;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** The demo's unfenced writes on SQL: a plain table, plain UPDATE and INSERT, no token anywhere. */
final class SqlPlainStore implements PlainStore {

    private final DataSource dataSource;

    private SqlPlainStore(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * {@code CREATE TABLE IF NOT EXISTS} is not safe against itself in PostgreSQL: two processes
     * starting at once can both pass the check and one fails on a catalog unique index (seen with
     * two workers). The loser retries, and then sees the winner's table.
     */
    private static void createTable(DataSource dataSource) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS fencing_cli_plain (k VARCHAR(256) PRIMARY KEY,"
                        + " v TEXT NOT NULL)");
                return;
            } catch (SQLException e) {
                // unique_violation on the catalog, duplicate_table, duplicate_object (its row type)
                boolean lostTheRace = List.of("23505", "42P07", "42710").contains(e.getSQLState());
                if (!lostTheRace || attempt == 3) {
                    throw e;
                }
            }
        }
    }

    static SqlPlainStore create(DataSource dataSource) {
        try {
            createTable(dataSource);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the demo's plain table: " + e.getMessage(), e);
        }
        return new SqlPlainStore(dataSource);
    }

    @Override
    public Optional<String> read(String key) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement("SELECT v FROM fencing_cli_plain WHERE k = ?")) {
            statement.setString(1, key);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Optional.of(row.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("plain read failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void write(String key, String value) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement update = connection.prepareStatement("UPDATE fencing_cli_plain SET v = ? WHERE k = ?")) {
            update.setString(1, value);
            update.setString(2, key);
            if (update.executeUpdate() == 0) {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO fencing_cli_plain (k, v) VALUES (?, ?)")) {
                    insert.setString(1, key);
                    insert.setString(2, value);
                    insert.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("plain write failed: " + e.getMessage(), e);
        }
    }
}
