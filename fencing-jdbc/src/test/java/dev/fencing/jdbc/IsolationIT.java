package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The guards at READ COMMITTED and REPEATABLE READ on both databases (MySQL/MariaDB default to
 * REPEATABLE READ): a stale write is refused with the mark the store really holds, never reported
 * as "no such row" or a lost race.
 */
class IsolationIT {

    static Stream<Arguments> serversAndLevels() {
        return Stream.of(Databases.postgres(), Databases.mariaDb()).flatMap(server -> Stream.of(
                Arguments.of(server, Connection.TRANSACTION_READ_COMMITTED),
                Arguments.of(server, Connection.TRANSACTION_REPEATABLE_READ)));
    }

    @FunctionalInterface
    interface Write {
        void run(Connection connection, FencingToken token, Map<String, Object> key) throws SQLException;
    }

    private static final RowGuard ACCOUNTS = RowGuard.create("accounts", "id");

    /**
     * A snapshot taken before the newer token: the caller's transaction read the row (its snapshot is taken), then a newer
     * holder committed token 10, then the caller writes with token 7. MySQL/MariaDB at REPEATABLE
     * READ used to re-read the mark from the old snapshot and answer "no such row" (update) or
     * "kept racing" (upsert); the locking read sees token 10. PostgreSQL at REPEATABLE READ refuses
     * the write itself with a serialization failure (40001): the snapshot cannot see the newer token,
     * and the caller must roll back and retry (the retry then gets the StaleTokenException).
     */
    @ParameterizedTest(name = "{0} at isolation {1}")
    @MethodSource("serversAndLevels")
    void aStaleWriteInATransactionWithAnOldSnapshotIsRefusedWithTheRealMark(SqlTestServer server, int isolation)
            throws SQLException {
        DataSource db = Databases.migrated(server, isolation);
        Map<String, Write> writes = Map.of(
                "update", (c, t, k) -> ACCOUNTS.update(c, t, k, Map.of("balance", 70)),
                "upsert", (c, t, k) -> ACCOUNTS.upsert(c, t, k, Map.of("balance", 70)),
                "delete", (c, t, k) -> ACCOUNTS.delete(c, t, k),
                "execute", (c, t, k) -> ACCOUNTS.execute(c, t, k, "UPDATE accounts SET balance = ? WHERE balance > ?", 70, 0));
        boolean postgresRepeatableRead = server.vendor().equals("postgresql")
                && isolation == Connection.TRANSACTION_REPEATABLE_READ;
        for (Map.Entry<String, Write> write : writes.entrySet()) {
            long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            Map<String, Object> key = Map.of("id", id);
            try (Connection setup = db.getConnection(); Connection caller = db.getConnection()) {
                ACCOUNTS.upsert(setup, token(5), Map.of("id", id), Map.of("balance", 100));
                caller.setAutoCommit(false);
                assertThat(balance(caller, id)).isEqualTo(100); // the caller's snapshot
                ACCOUNTS.update(setup, token(10), Map.of("id", id), Map.of("balance", 150));

                if (postgresRepeatableRead) {
                    assertThatThrownBy(() -> write.getValue().run(caller, token(7), key)).as(write.getKey())
                            .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("40001"));
                } else {
                    assertThatThrownBy(() -> write.getValue().run(caller, token(7), key)).as(write.getKey())
                            .isInstanceOfSatisfying(StaleTokenException.class,
                                    e -> assertThat(e.highWaterMark()).as(write.getKey()).isEqualTo(10));
                }
                caller.rollback();
                caller.setAutoCommit(true);
                assertThat(balance(caller, id)).as(write.getKey()).isEqualTo(150);
                assertThatThrownBy(() -> write.getValue().run(caller, token(7), key)).as(write.getKey() + ", retried")
                        .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(10));
            }
        }
    }

    /**
     * A zombie in auto-commit mode waits on the row a newer holder has locked; the holder commits
     * token 10. Under REPEATABLE READ PostgreSQL fails the zombie's statement (40001); its own
     * transaction is run again, sees token 10, and the zombie gets StaleTokenException with 10.
     */
    @ParameterizedTest(name = "{0} at isolation {1}")
    @MethodSource("serversAndLevels")
    void aZombieWaitingOnTheNewerHoldersRowLockGetsTheRealMarkOnceItCommits(SqlTestServer server, int isolation)
            throws Exception {
        DataSource db = Databases.migrated(server, isolation);
        for (String operation : List.of("update", "upsert", "delete")) {
            long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
            Map<String, Object> key = Map.of("id", id);
            try (Connection newer = db.getConnection(); Connection zombie = db.getConnection()) {
                ACCOUNTS.upsert(newer, token(5), key, Map.of("balance", 100));
                newer.setAutoCommit(false);
                if (operation.equals("update")) {
                    ACCOUNTS.update(newer, token(10), key, Map.of("balance", 150)); // locks the row
                } else {
                    ACCOUNTS.upsert(newer, token(10), key, Map.of("balance", 150)); // locks the row and its entry
                }
                CompletableFuture<Object> late = CompletableFuture.supplyAsync(() -> {
                    try {
                        return switch (operation) {
                            case "update" -> ACCOUNTS.update(zombie, token(7), key, Map.of("balance", 70));
                            case "upsert" -> {
                                ACCOUNTS.upsert(zombie, token(7), key, Map.of("balance", 70));
                                yield null;
                            }
                            default -> ACCOUNTS.delete(zombie, token(7), key);
                        };
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                await().atMost(Duration.ofSeconds(10)).until(() -> JdbcFencingIT.blockedOnALock(db, server));
                assertThat(late).isNotDone();
                newer.commit();

                assertThat(late).as(operation).failsWithin(10, TimeUnit.SECONDS)
                        .withThrowableOfType(ExecutionException.class).havingCause()
                        .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(10));
                newer.setAutoCommit(true);
                assertThat(balance(newer, id)).isEqualTo(150);
            }
        }
    }

    /** The fence row, for JDBC and Jdbi, at both levels: a zombie blocked on the row fails with the newer token. */
    @ParameterizedTest(name = "{0} at isolation {1}")
    @MethodSource("serversAndLevels")
    void aZombieFenceBlockedOnTheNewerHolderFailsWithItsToken(SqlTestServer server, int isolation) throws Exception {
        DataSource db = Databases.migrated(server, isolation);
        for (boolean jdbi : List.of(false, true)) {
            String resource = "account-" + UUID.randomUUID();
            try (Connection newer = db.getConnection()) {
                newer.setAutoCommit(false);
                JdbcFence.create(db).advance(newer, FencingToken.of(resource, 6));
                CompletableFuture<Integer> zombie = CompletableFuture.supplyAsync(() -> {
                    try {
                        return jdbi
                                ? JdbiFence.create(Jdbi.create(db)).inTransaction(FencingToken.of(resource, 5), handle -> 1)
                                : JdbcFence.create(db).inTransaction(FencingToken.of(resource, 5), connection -> 1);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                await().atMost(Duration.ofSeconds(10)).until(() -> JdbcFencingIT.blockedOnALock(db, server));
                newer.commit();
                assertThat(zombie).as(jdbi ? "Jdbi" : "JDBC").failsWithin(10, TimeUnit.SECONDS)
                        .withThrowableOfType(ExecutionException.class).havingCause()
                        .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(6));
            }
        }
    }

    /**
     * Many writers on one row at once, each in auto-commit mode with a newer token than the last:
     * every write is accepted or refused as stale, none ends in the database's serialization failure
     * (PostgreSQL REPEATABLE READ fails each waiter on the row whenever its holder commits, so with
     * a dozen writers a run can lose many times over; the guard runs again, backing off).
     */
    @ParameterizedTest(name = "{0} at isolation {1}")
    @MethodSource("serversAndLevels")
    void manyWritersOnOneRowEachSettleAsAcceptedOrStale(SqlTestServer server, int isolation) throws Exception {
        DataSource db = Databases.forStores(server, isolation);
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        Map<String, Object> key = Map.of("id", id);
        java.util.concurrent.atomic.AtomicLong tokens = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger stale = new java.util.concurrent.atomic.AtomicInteger();
        int writers = 12;
        int rounds = 15;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int w = 0; w < writers; w++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        long value = tokens.incrementAndGet();
                        try (Connection connection = db.getConnection()) {
                            ACCOUNTS.upsert(connection, FencingToken.of("one-row", value), key, Map.of("balance", value));
                            accepted.incrementAndGet();
                        } catch (StaleTokenException e) {
                            stale.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> each : done) {
                each.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(accepted.get() + stale.get()).isEqualTo(writers * rounds);
        assertThat(accepted.get()).isPositive();
    }

    /**
     * One lock per token value: the lock's fence row (which the row guard raises first, shared with
     * JdbcFence; RowGuardAndFenceRowShareMarksIT) then never refuses, and these tests reach the row's
     * own token and entry checks, which guard writers of different locks.
     */
    private static FencingToken token(long value) {
        return FencingToken.of("isolation-" + value, value);
    }

    private static long balance(Connection connection, long id) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT balance FROM accounts WHERE id = " + id)) {
            return row.next() ? row.getLong(1) : -1;
        }
    }
}
