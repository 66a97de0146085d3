package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
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
import org.junit.jupiter.api.Test;

/**
 * Each setting of {@link JdbcFencedStore.Builder} takes effect against the testkit's PostgreSQL,
 * and {@link JdbcFencedStore#create(DataSource)} is the builder's defaults: {@code fencing_store},
 * {@link Policy#MONOTONIC}, no listener.
 */
class JdbcFencedStoreBuilderIT {

    private final DataSource db = Databases.migrated(Databases.postgres());

    private static String key() {
        return "builder-" + UUID.randomUUID();
    }

    @Test
    void createIsTheDefaults() throws SQLException {
        FencedStore store = JdbcFencedStore.create(db);
        String key = key();
        store.write(FencingToken.of("orders", 10), key, "a");
        store.write(FencingToken.of("orders", 10), key, "b"); // MONOTONIC: the same token writes again
        assertThat(store.read(key)).hasValueSatisfying(value -> assertThat(value.value()).isEqualTo("b"));
        assertThat(count("SELECT COUNT(*) FROM fencing_store WHERE item_key = '" + key + "' AND token = 10"))
                .isEqualTo(1);
    }

    @Test
    void theTableIsTheOneNamed() throws SQLException {
        String table = "other_store_" + UUID.randomUUID().toString().substring(0, 8);
        execute("CREATE TABLE " + table + " (LIKE fencing_store INCLUDING ALL)");
        FencedStore store = JdbcFencedStore.builder(db).table(table).build();
        String key = key();
        store.write(FencingToken.of("orders", 3), key, "v");
        assertThat(count("SELECT COUNT(*) FROM " + table + " WHERE item_key = '" + key + "'")).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM fencing_store WHERE item_key = '" + key + "'")).isZero();
        execute("DROP TABLE " + table);
    }

    @Test
    void strictRefusesTheSameTokenThatMonotonicLetsThrough() {
        FencedStore strict = JdbcFencedStore.builder(db).policy(Policy.STRICT).build();
        String key = key();
        strict.write(FencingToken.of("orders", 10), key, "a");
        assertThatThrownBy(() -> strict.write(FencingToken.of("orders", 10), key, "b"))
                .isInstanceOf(StaleTokenException.class);
        strict.write(FencingToken.of("orders", 11), key, "c");
    }

    @Test
    void theListenerHearsTheRefusedWrite() {
        RecordingListener holderEvents = new RecordingListener();
        RecordingListener zombieEvents = new RecordingListener();
        FencedStore holder = JdbcFencedStore.builder(db).listener(holderEvents).build();
        FencedStore zombie = JdbcFencedStore.builder(db).listener(zombieEvents).build();
        String key = key();
        holder.write(FencingToken.of("orders", 10), key, "holder");
        assertThatThrownBy(() -> zombie.write(FencingToken.of("orders", 7), key, "zombie"))
                .isInstanceOf(StaleTokenException.class);
        assertThat(holderEvents.accepted()).isEqualTo(1);
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
        assertThat(zombieEvents.accepted()).isZero();
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
