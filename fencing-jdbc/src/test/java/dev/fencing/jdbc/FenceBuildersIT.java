package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.RecordingListener;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Each setting of {@link JdbcFence.Builder} and {@link JdbiFence.Builder} takes effect against the
 * testkit's PostgreSQL, and {@code create} is the builders' defaults: {@code fencing_fence},
 * {@link Policy#MONOTONIC}, no listener.
 */
class FenceBuildersIT {

    private final DataSource db = Databases.migrated(Databases.postgres());
    private final Jdbi jdbi = Jdbi.create(db);

    private static String lock() {
        return "builder-" + UUID.randomUUID();
    }

    @Test
    void createIsTheDefaults() throws SQLException {
        String lock = lock();
        JdbcFence.create(db).inTransaction(FencingToken.of(lock, 10), connection -> null);
        JdbiFence.create(jdbi).useTransaction(FencingToken.of(lock, 10), handle -> { }); // MONOTONIC: again
        assertThat(mark("fencing_fence", lock)).isEqualTo(10);
    }

    @Test
    void theTableIsTheOneNamed() throws SQLException {
        String table = "other_fence_" + UUID.randomUUID().toString().substring(0, 8);
        execute("CREATE TABLE " + table + " (LIKE fencing_fence INCLUDING ALL)");
        String jdbcLock = lock();
        String jdbiLock = lock();
        JdbcFence.builder(db).table(table).build().inTransaction(FencingToken.of(jdbcLock, 5), connection -> null);
        JdbiFence.builder(jdbi).table(table).build().useTransaction(FencingToken.of(jdbiLock, 6), handle -> { });
        assertThat(mark(table, jdbcLock)).isEqualTo(5);
        assertThat(mark(table, jdbiLock)).isEqualTo(6);
        assertThat(count("SELECT COUNT(*) FROM fencing_fence WHERE resource IN ('" + jdbcLock + "', '" + jdbiLock + "')"))
                .as("nothing in the default fencing_fence").isZero();
        execute("DROP TABLE " + table);
    }

    @Test
    void strictRefusesTheSameTokenThatMonotonicLetsThrough() throws SQLException {
        String lock = lock();
        JdbcFence strict = JdbcFence.builder(db).policy(Policy.STRICT).build();
        JdbiFence strictJdbi = JdbiFence.builder(jdbi).policy(Policy.STRICT).build();
        assertThat(strict.policy()).isEqualTo(Policy.STRICT);
        strict.inTransaction(FencingToken.of(lock, 10), connection -> null);
        assertThatThrownBy(() -> strict.inTransaction(FencingToken.of(lock, 10), connection -> null))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> strictJdbi.useTransaction(FencingToken.of(lock, 10), handle -> { }))
                .isInstanceOf(StaleTokenException.class);
        strictJdbi.useTransaction(FencingToken.of(lock, 11), handle -> { });
        assertThat(mark("fencing_fence", lock)).isEqualTo(11);
    }

    @Test
    void theListenerHearsTheRefusedWrite() throws SQLException {
        RecordingListener jdbcEvents = new RecordingListener();
        RecordingListener jdbiEvents = new RecordingListener();
        String lock = lock();
        JdbcFence.create(db).inTransaction(FencingToken.of(lock, 10), connection -> null);
        JdbcFence zombie = JdbcFence.builder(db).listener(jdbcEvents).build();
        JdbiFence jdbiZombie = JdbiFence.builder(jdbi).listener(jdbiEvents).build();
        assertThatThrownBy(() -> zombie.inTransaction(FencingToken.of(lock, 7), connection -> null))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> jdbiZombie.useTransaction(FencingToken.of(lock, 8), handle -> { }))
                .isInstanceOf(StaleTokenException.class);
        assertThat(jdbcEvents.staleRejected()).isEqualTo(1);
        assertThat(jdbiEvents.staleRejected()).isEqualTo(1);
    }

    private long mark(String table, String lock) throws SQLException {
        return count("SELECT token FROM " + table + " WHERE kind = 'lock' AND resource = '" + lock + "'");
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            assertThat(result.next()).as(sql).isTrue();
            return result.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
