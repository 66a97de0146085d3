package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.jdbc.RowGuard;
import dev.fencing.testkit.Holds;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Transaction-scoped advisory locks, alone and with fencing-jdbc's fence row in the same transaction. */
class TransactionLocksIT {

    private static DataSource db;
    private final TransactionLocks locks = TransactionLocks.create();

    @BeforeAll
    static void database() throws SQLException {
        db = PostgresAdvisoryLockProviderIT.pool();
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS ledger (id VARCHAR(64) PRIMARY KEY, balance BIGINT NOT NULL,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
        }
    }

    private static String resource() {
        return "tx-" + UUID.randomUUID();
    }

    @Test
    void lockTokenAndFencedWritesCommitInOneTransaction() throws Exception {
        String resource = resource();
        long first = inTransaction(connection -> {
            FencingToken token = locks.lock(connection, resource);
            JdbcFence.create(db).advance(connection, token);
            RowGuard.create("ledger", "id").upsert(connection, token, Map.of("id", resource), Map.of("balance", 100));
            return token.value();
        });
        long second = inTransaction(connection -> locks.lock(connection, resource).value());
        assertThat(second).isGreaterThan(first);
    }

    @Test
    void aSecondTransactionWaitsUntilTheFirstCommitsAndTryLockSeesItHeld() throws Exception {
        String resource = resource();
        try (Connection holder = db.getConnection(); Connection other = db.getConnection();
                Connection third = db.getConnection()) {
            holder.setAutoCommit(false);
            other.setAutoCommit(false);
            third.setAutoCommit(false);
            FencingToken held = locks.lock(holder, resource);
            assertThat(locks.tryLock(third, resource)).isEmpty();
            third.rollback();
            try (PostgresAdvisoryLockProvider sessions = PostgresAdvisoryLockProvider.create(db)) {
                assertThat(sessions.tryAcquire(resource, LeaseOptions.ofDefaults()))
                        .as("session and transaction locks share the key space").isEmpty();
            }

            CompletableFuture<FencingToken> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return locks.lock(other, resource);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Holds.throughout("the other transaction waiting", Duration.ofMillis(200), () -> !waiting.isDone());
            holder.commit();
            assertThat(waiting.get(10, TimeUnit.SECONDS).value()).isGreaterThan(held.value());
            other.commit();
        }
    }

    @Test
    void aTimedLockGivesUpWithLockUnavailable() throws Exception {
        String resource = resource();
        try (Connection holder = db.getConnection(); Connection other = db.getConnection()) {
            holder.setAutoCommit(false);
            other.setAutoCommit(false);
            locks.lock(holder, resource);
            assertThatThrownBy(() -> locks.lock(other, resource, Duration.ofMillis(200)))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining(resource);
            other.rollback();
            holder.rollback();
        }
    }

    @Test
    void autoCommitAndBadArgumentsAreRefused() throws Exception {
        try (Connection connection = db.getConnection()) {
            assertThatThrownBy(() -> locks.lock(connection, "r"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit is on");
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> locks.tryLock(connection, " ")).isInstanceOf(IllegalArgumentException.class);
            connection.rollback();
        }
        assertThatThrownBy(() -> TransactionLocks.create("bad name")).hasMessageContaining("'bad name'");
        assertThat(Optional.of(TransactionLocks.create("fencing_token_counter"))).isPresent();
    }

    @ParameterizedTest
    @ValueSource(ints = {Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_SERIALIZABLE})
    void aSnapshotIsolationTransactionIsRefusedBeforeAnythingIsLockedOrCounted(int level) throws Exception {
        String resource = resource();
        long before = inTransaction(connection -> locks.lock(connection, resource).value());
        try (Connection connection = db.getConnection()) {
            connection.setTransactionIsolation(level);
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> locks.lock(connection, resource))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("needs a READ COMMITTED transaction")
                    .hasMessageContaining(level == Connection.TRANSACTION_SERIALIZABLE ? "SERIALIZABLE" : "REPEATABLE READ")
                    .hasMessageContaining("Nothing was locked or counted");
            assertThatThrownBy(() -> locks.tryLock(connection, resource)).isInstanceOf(IllegalStateException.class);
            long counted = inTransaction(reader -> {
                try (var read = reader.prepareStatement("SELECT token FROM fencing_token_counter WHERE resource = ?")) {
                    read.setString(1, resource);
                    try (var row = read.executeQuery()) {
                        row.next();
                        return row.getLong(1);
                    }
                }
            });
            assertThat(counted).as("the refused calls counted nothing").isEqualTo(before);
            try (Connection other = db.getConnection()) {
                other.setAutoCommit(false);
                assertThat(locks.tryLock(other, resource)).as("not locked by the refused transaction").isPresent();
                other.commit();
            }
            connection.rollback();
        }
        long after = inTransaction(connection -> locks.lock(connection, resource).value());
        assertThat(after).as("one grant in between, then this one").isGreaterThan(before + 1);
    }

    private static <T> T inTransaction(dev.fencing.jdbc.SqlFunction<T> work) throws SQLException {
        try (Connection connection = db.getConnection()) {
            connection.setAutoCommit(false);
            T result = work.apply(connection);
            connection.commit();
            return result;
        }
    }
}
