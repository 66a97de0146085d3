package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.RecordingListener;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Every JDBC writer reports what it refuses to its listener (so metrics see it), not only the
 * store: {@link JdbcFence}, {@link JdbiFence} and {@link RowGuard}, each with a holder at 10 and
 * a zombie at 7 on instances of their own.
 */
class WritersReportToTheListenerIT {

    private final DataSource db = Databases.migrated(Databases.postgres());

    private static String lock() {
        return "listened-" + UUID.randomUUID();
    }

    @Test
    void jdbcFenceReportsTheRefusalAndTheCommittedTransaction() throws Exception {
        RecordingListener holderEvents = new RecordingListener();
        RecordingListener zombieEvents = new RecordingListener();
        JdbcFence holder = JdbcFence.builder(db).listener(holderEvents).build();
        JdbcFence zombie = JdbcFence.builder(db).listener(zombieEvents).build();
        String lock = lock();

        holder.inTransaction(FencingToken.of(lock, 10), connection -> null);
        assertThatThrownBy(() -> zombie.inTransaction(FencingToken.of(lock, 7), connection -> null))
                .isInstanceOf(StaleTokenException.class);
        try (Connection connection = db.getConnection()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> zombie.advance(connection, FencingToken.of(lock, 8)))
                    .isInstanceOf(StaleTokenException.class);
            connection.rollback();
        }

        assertThat(holderEvents.accepted()).isEqualTo(1);
        assertThat(holderEvents.staleRejected()).isZero();
        assertThat(zombieEvents.staleRejected()).as("inTransaction and advance, each refused once").isEqualTo(2);
        assertThat(zombieEvents.accepted()).isZero();
    }

    @Test
    void jdbiFenceReportsTheRefusalAndTheCommittedTransaction() {
        RecordingListener holderEvents = new RecordingListener();
        RecordingListener zombieEvents = new RecordingListener();
        Jdbi jdbi = Jdbi.create(db);
        JdbiFence holder = JdbiFence.builder(jdbi).listener(holderEvents).build();
        JdbiFence zombie = JdbiFence.builder(jdbi).listener(zombieEvents).build();
        String lock = lock();

        holder.useTransaction(FencingToken.of(lock, 10), handle -> { });
        assertThatThrownBy(() -> zombie.useTransaction(FencingToken.of(lock, 7), handle -> { }))
                .isInstanceOf(StaleTokenException.class);

        assertThat(holderEvents.accepted()).isEqualTo(1);
        assertThat(zombieEvents.staleRejected()).isEqualTo(1);
        assertThat(zombieEvents.accepted()).isZero();
    }

    @Test
    void rowGuardReportsEachRefusedRowWrite() throws Exception {
        RecordingListener zombieEvents = new RecordingListener();
        RowGuard holder = RowGuard.create("accounts", "id");
        RowGuard zombie = RowGuard.builder("accounts", "id").listener(zombieEvents).build();
        long id = Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L) + 1_000_000;
        String lock = lock();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO accounts (id, balance, fencing_token) VALUES (" + id + ", 0, 0)");
            assertThat(holder.update(connection, FencingToken.of(lock, 10), Map.of("id", id), Map.of("balance", 5)))
                    .isTrue();
            assertThatThrownBy(() -> zombie.update(connection, FencingToken.of(lock, 7), Map.of("id", id),
                    Map.of("balance", 1))).isInstanceOf(StaleTokenException.class);
            assertThatThrownBy(() -> zombie.delete(connection, FencingToken.of(lock, 8), Map.of("id", id)))
                    .isInstanceOf(StaleTokenException.class);
        }
        assertThat(zombieEvents.staleRejected()).as("the update and the delete, each refused once").isEqualTo(2);
    }

    @Test
    void badListenersAreRefusedByName() {
        assertThatThrownBy(() -> JdbcFence.builder(db).listener(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id").listener(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listener");
    }
}
