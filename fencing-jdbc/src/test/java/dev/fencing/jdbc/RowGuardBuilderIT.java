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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Each setting of {@link RowGuard.Builder} takes effect against the testkit's PostgreSQL, and
 * {@link RowGuard#create} is the builder's defaults: token column {@code fencing_token},
 * {@link Policy#MONOTONIC}, the data table's {@code fencing_fence}, no listener.
 */
class RowGuardBuilderIT {

    private final DataSource db = Databases.migrated(Databases.postgres());

    private static long newId() {
        return ThreadLocalRandom.current().nextLong(1_000_000, Long.MAX_VALUE);
    }

    private static String lock() {
        return "builder-" + UUID.randomUUID();
    }

    @Test
    void createIsTheDefaults() throws SQLException {
        RowGuard accounts = RowGuard.create("accounts", "id");
        long id = newId();
        String lock = lock();
        try (Connection connection = db.getConnection()) {
            accounts.upsert(connection, FencingToken.of(lock, 10), Map.of("id", id), Map.of("balance", 1));
            assertThat(accounts.update(connection, FencingToken.of(lock, 10), Map.of("id", id), Map.of("balance", 2)))
                    .as("MONOTONIC: the same token writes again").isTrue();
            assertThat(query(connection, "SELECT fencing_token FROM accounts WHERE id = " + id)).as("fencing_token")
                    .isEqualTo(10);
            accounts.delete(connection, FencingToken.of(lock, 11), Map.of("id", id));
            assertThat(query(connection, "SELECT token FROM fencing_fence WHERE kind = 'row' AND resource = "
                    + "'public.accounts:" + id + "'")).as("the deleted row's mark, in fencing_fence").isEqualTo(11);
            assertThatThrownBy(() -> accounts.upsert(connection, FencingToken.of(lock, 10), Map.of("id", id),
                    Map.of("balance", 3))).isInstanceOf(StaleTokenException.class);
        }
    }

    @Test
    void theTokenColumnIsTheOneNamed() throws SQLException {
        String table = "lease_kv_" + UUID.randomUUID().toString().substring(0, 8);
        long id = newId();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, v TEXT, lease_token BIGINT NOT NULL"
                    + " DEFAULT 0)");
            RowGuard guard = RowGuard.builder(table, "id").tokenColumn("lease_token").build();
            guard.upsert(connection, FencingToken.of(lock(), 12), Map.of("id", id), Map.of("v", "x"));
            assertThat(query(connection, "SELECT lease_token FROM " + table + " WHERE id = " + id)).isEqualTo(12);
            assertThatThrownBy(() -> RowGuard.create(table, "id").upsert(connection, FencingToken.of(lock(), 13),
                    Map.of("id", id), Map.of("v", "y")))
                    .as("the default token column is not in this table").hasMessageContaining("fencing_token");
            statement.execute("DROP TABLE " + table);
        }
    }

    @Test
    void strictRefusesTheSameTokenThatMonotonicLetsThrough() throws SQLException {
        RowGuard strict = RowGuard.builder("accounts", "id").policy(Policy.STRICT).build();
        long id = newId();
        String lock = lock();
        try (Connection connection = db.getConnection()) {
            strict.upsert(connection, FencingToken.of(lock, 10), Map.of("id", id), Map.of("balance", 1));
            assertThatThrownBy(() -> strict.update(connection, FencingToken.of(lock, 10), Map.of("id", id),
                    Map.of("balance", 2))).isInstanceOf(StaleTokenException.class);
            assertThat(strict.update(connection, FencingToken.of(lock, 11), Map.of("id", id), Map.of("balance", 3)))
                    .isTrue();
        }
    }

    @Test
    void theFenceTableIsTheOneNamed() throws SQLException {
        String fence = "other_fence_" + UUID.randomUUID().toString().substring(0, 8);
        long id = newId();
        String lock = lock();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + fence + " (LIKE fencing_fence INCLUDING ALL)");
            RowGuard guard = RowGuard.builder("accounts", "id").fenceTable("public." + fence).build();
            guard.upsert(connection, FencingToken.of(lock, 10), Map.of("id", id), Map.of("balance", 1));
            guard.delete(connection, FencingToken.of(lock, 11), Map.of("id", id));
            assertThat(query(connection, "SELECT token FROM " + fence + " WHERE kind = 'row' AND resource = "
                    + "'public.accounts:" + id + "'")).as("the deleted row's mark, in " + fence).isEqualTo(11);
            assertThat(query(connection, "SELECT token FROM " + fence + " WHERE kind = 'lock' AND resource = '" + lock
                    + "'")).as("the lock's fence row, in " + fence).isEqualTo(11);
            assertThat(query(connection, "SELECT COUNT(*) FROM fencing_fence WHERE resource IN ('" + lock
                    + "', 'public.accounts:" + id + "')")).as("nothing in the default fencing_fence").isZero();
            statement.execute("DROP TABLE " + fence);
        }
    }

    @Test
    void theListenerHearsEveryRefusedWrite() throws SQLException {
        RecordingListener zombieEvents = new RecordingListener();
        RowGuard holder = RowGuard.create("accounts", "id");
        RowGuard zombie = RowGuard.builder("accounts", "id").listener(zombieEvents).build();
        long id = newId();
        String lock = lock();
        try (Connection connection = db.getConnection()) {
            holder.upsert(connection, FencingToken.of(lock, 10), Map.of("id", id), Map.of("balance", 1));
            assertThatThrownBy(() -> zombie.update(connection, FencingToken.of(lock, 7), Map.of("id", id),
                    Map.of("balance", 2))).isInstanceOf(StaleTokenException.class);
        }
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
    }

    private static long query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            assertThat(result.next()).as(sql).isTrue();
            return result.getLong(1);
        }
    }
}
