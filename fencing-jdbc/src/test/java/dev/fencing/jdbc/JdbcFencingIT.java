package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryLockProvider;
import dev.fencing.testkit.servers.SqlTestServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The native JDBC and Jdbi APIs on real PostgreSQL and MariaDB. */
class JdbcFencingIT {

    static Stream<SqlTestServer> servers() {
        return Stream.of(Databases.postgres(), Databases.mariaDb());
    }

    private static long newId() {
        return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }

    private static String resource() {
        return "account-" + UUID.randomUUID();
    }

    /** Article §13 with Jdbi: the paused holder's DAO update is refused, the balance is the newer holder's. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theZombieWritersDaoUpdateIsRefusedByTheFenceRow(SqlTestServer server) throws Exception {
        Jdbi jdbi = Jdbi.create(Databases.migrated(server)).installPlugin(new SqlObjectPlugin());
        JdbiFence fence = JdbiFence.create(jdbi);
        long id = newId();
        String account = resource();
        jdbi.useExtension(AccountDao.class, dao -> dao.open(id, 100));
        try (InMemoryLockProvider locks = InMemoryLockProvider.create()) {
            Lease client1 = locks.tryAcquire(account, LeaseOptions.ofTtl(Duration.ofMillis(100))).orElseThrow();
            long seenBy1 = fence.withExtension(client1.token(), AccountDao.class, dao -> dao.balance(id));
            await().atMost(Duration.ofSeconds(5)).until(() -> !client1.isValid()); // client 1 "pauses" past its TTL

            try (Lease client2 = locks.acquire(account, LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                fence.useTransaction(client2.token(), handle -> {
                    AccountDao dao = handle.attach(AccountDao.class);
                    dao.setBalance(id, dao.balance(id) + 50);
                });
            }
            assertThatThrownBy(() -> fence.withExtension(client1.token(), AccountDao.class, dao -> {
                dao.setBalance(id, seenBy1 - 30);
                return null;
            })).isInstanceOf(StaleTokenException.class)
                    .hasMessageContaining("presented " + client1.token().value());
        }
        long finalBalance = jdbi.withExtension(AccountDao.class, dao -> dao.balance(id));
        assertThat(finalBalance).isEqualTo(150);
    }

    /** READ COMMITTED: a zombie blocked on the fence row lock sees the newer token once it gets the row, and fails. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aZombieBlockedOnTheFenceRowSeesTheNewerTokenOnceItGetsTheRow(SqlTestServer server) throws Exception {
        DataSource db = Databases.migrated(server);
        JdbcFence fence = JdbcFence.create(db);
        String resource = resource();
        try (Connection newer = db.getConnection(); Connection zombie = db.getConnection()) {
            newer.setAutoCommit(false);
            zombie.setAutoCommit(false);
            zombie.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            fence.advance(newer, FencingToken.of(resource, 6));

            CompletableFuture<Void> zombieAdvance = CompletableFuture.runAsync(() -> {
                try {
                    fence.advance(zombie, FencingToken.of(resource, 5));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> blockedOnALock(db, server));
            assertThat(zombieAdvance).isNotDone();
            newer.commit();

            assertThat(zombieAdvance).failsWithin(10, TimeUnit.SECONDS).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .havingCause().isInstanceOf(StaleTokenException.class)
                    .withMessageContaining("already accepted token 6");
            zombie.rollback();
        }
    }

    static boolean blockedOnALock(DataSource db, SqlTestServer server) throws SQLException {
        String sql = server.vendor().equals("postgresql")
                ? "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                : "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1) > 0;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void theRowGuardUpdatesTellsStaleFromMissingAndFencesHandWrittenStatements(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        RowGuard accounts = RowGuard.create("accounts", "id");
        long id = newId();
        String resource = resource();
        try (Connection connection = db.getConnection()) {
            assertThat(accounts.update(connection, FencingToken.of(resource, 3), Map.of("id", id), Map.of("balance", 1)))
                    .as("no such row").isFalse();
            accounts.upsert(connection, FencingToken.of(resource, 3), Map.of("id", id), Map.of("balance", 100));
            assertThat(accounts.update(connection, FencingToken.of(resource, 4), Map.of("id", id), Map.of("balance", 150)))
                    .isTrue();
            assertThatThrownBy(() -> accounts.update(connection, FencingToken.of(resource, 3), Map.of("id", id),
                    Map.of("balance", 70)))
                    .isInstanceOf(StaleTokenException.class)
                    .satisfies(e -> assertThat(((StaleTokenException) e).highWaterMark()).isEqualTo(4));

            String debit = "UPDATE accounts SET balance = balance - ?, fencing_token = :fencing_token"
                    + " WHERE id = ? AND balance >= ? AND fencing_token <= :fencing_token";
            assertThat(accounts.execute(connection, FencingToken.of(resource, 5), Map.of("id", id), debit, 30, id, 30))
                    .isEqualTo(1);
            assertThat(accounts.execute(connection, FencingToken.of(resource, 5), Map.of("id", id), debit, 500, id, 500))
                    .as("the caller's own condition failed: not stale").isZero();
            assertThatThrownBy(() -> accounts.execute(connection, FencingToken.of(resource, 4), Map.of("id", id), debit,
                    1, id, 1)).isInstanceOf(StaleTokenException.class);
            assertThat(balance(connection, id)).isEqualTo(120);
            assertThat(accounts.highWaterMark(connection, Map.of("id", id))).hasValue(5);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aDeletedRowKeepsItsMarkSoAZombieCannotRecreateIt(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        RowGuard accounts = RowGuard.create("accounts", "id");
        long id = newId();
        String resource = resource();
        try (Connection connection = db.getConnection()) {
            accounts.upsert(connection, FencingToken.of(resource, 5), Map.of("id", id), Map.of("balance", 100));
            assertThat(accounts.delete(connection, FencingToken.of(resource, 6), Map.of("id", id))).isTrue();
            assertThatThrownBy(() -> accounts.upsert(connection, FencingToken.of(resource, 5), Map.of("id", id),
                    Map.of("balance", 70))).isInstanceOf(StaleTokenException.class);
            assertThatThrownBy(() -> accounts.insert(connection, FencingToken.of(resource, 5), Map.of("id", id),
                    Map.of("balance", 70))).isInstanceOf(StaleTokenException.class);
            assertThat(accounts.highWaterMark(connection, Map.of("id", id))).hasValue(6);
            assertThat(balanceOrAbsent(connection, id)).isEmpty();

            assertThat(accounts.insert(connection, FencingToken.of(resource, 7), Map.of("id", id), Map.of("balance", 1)))
                    .isTrue();
            assertThat(accounts.insert(connection, FencingToken.of(resource, 8), Map.of("id", id), Map.of("balance", 2)))
                    .as("row exists").isFalse();
            assertThat(balance(connection, id)).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void aMissingFenceTableOrTokenColumnNamesTheTableAndTheMigration(SqlTestServer server) throws SQLException {
        DataSource bare = server.freshDatabase(); // no migrations
        try (Connection connection = bare.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE ledger (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL)");
            statement.execute("CREATE TABLE fenced_ledger (id BIGINT PRIMARY KEY, fencing_token BIGINT NOT NULL)");
        }
        assertThatThrownBy(() -> JdbcFence.create(bare).inTransaction(FencingToken.of("r", 1), connection -> 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("table 'fencing_fence' does not exist")
                .hasMessageContaining("FencingMigrations.migrate(dataSource)");
        assertThatThrownBy(() -> JdbcFence.create(bare).checkTable()).as("the start-up check, before any write")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("table 'fencing_fence' does not exist")
                .hasMessageContaining("FencingMigrations.migrate(dataSource)");
        assertThatThrownBy(() -> JdbiFence.create(org.jdbi.v3.core.Jdbi.create(bare)).checkTable())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("table 'fencing_fence' does not exist");
        JdbcFence.create(Databases.migrated(server)).checkTable(); // a migrated database passes
        try (Connection connection = bare.getConnection()) {
            assertThatThrownBy(() -> RowGuard.create("ledger", "id").update(connection, FencingToken.of("r", 1),
                    Map.of("id", 1), Map.of("balance", 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table 'ledger'")
                    .hasMessageContaining("the token column is 'fencing_token'")
                    .hasMessageContaining("AddFencingTokenColumns");
            assertThatThrownBy(() -> RowGuard.create("nowhere", "id").delete(connection, FencingToken.of("r", 1),
                    Map.of("id", 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table 'nowhere' does not exist")
                    .hasMessageContaining("AddFencingTokenColumns");
            String schema = server.vendor().equals("postgresql") ? "public" : connection.getCatalog();
            assertThatThrownBy(() -> RowGuard.create("fenced_ledger", "id").delete(connection, FencingToken.of("r", 1),
                    Map.of("id", 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("table '" + schema + ".fencing_fence' does not exist") // the data table's schema
                    .hasMessageContaining("FencingMigrations.migrate(dataSource)");
        }
        assertThatThrownBy(() -> JdbcFencedStore.create(bare).read("k"))
                .hasMessageContaining("table 'fencing_store' does not exist");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("servers")
    void misuseIsRefusedWithAClearMessage(SqlTestServer server) throws SQLException {
        DataSource db = Databases.migrated(server);
        try (Connection connection = db.getConnection()) {
            assertThatThrownBy(() -> JdbcFence.create(db).advance(connection, FencingToken.of("r", 1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit is on");
        }
        Jdbi jdbi = Jdbi.create(db);
        assertThatThrownBy(() -> jdbi.useHandle(handle -> JdbiFence.create(jdbi).advance(handle, FencingToken.of("r", 1))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("advance needs a transaction");
        assertThatThrownBy(() -> RowGuard.create("accounts; DROP TABLE accounts", "id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'accounts; DROP TABLE accounts'");
        assertThatThrownBy(() -> RowGuard.builder("accounts", "id").tokenColumn("token--"))
                .hasMessageContaining("token column must be an unquoted SQL name");
        try (Connection connection = db.getConnection()) {
            RowGuard accounts = RowGuard.create("accounts", "id");
            assertThatThrownBy(() -> accounts.update(connection, FencingToken.of("r", 1), Map.of("ident", 1),
                    Map.of("balance", 1))).hasMessageContaining("the key of table 'accounts' is [id], got [ident]");
            assertThatThrownBy(() -> accounts.update(connection, FencingToken.of("r", 1), Map.of("id", 1),
                    Map.of("fencing_token", 9))).hasMessageContaining("is the token or a key column");
            assertThatThrownBy(() -> accounts.update(connection, FencingToken.of("r", 1), Map.of("id", 1, "balance", 2),
                    Map.of("balance", 1))).hasMessageContaining("the key of table 'accounts' is [id], got [");
            // a column set that passed once is remembered; a new set is checked again, name by name
            accounts.update(connection, FencingToken.of("r", 1), Map.of("id", 1), Map.of("balance", 1));
            assertThatThrownBy(() -> accounts.update(connection, FencingToken.of("r", 1), Map.of("id", 1),
                    Map.of("balance", 1, "balance = 0; --", 2)))
                    .hasMessageContaining("column must be an unquoted SQL name").hasMessageContaining("'balance = 0; --'");
            assertThatThrownBy(() -> JdbcFence.builder(db).table("fencing_fence").policy(Policy.STRICT).build()
                    .advance(null, FencingToken.of("r", 1))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static long balance(Connection connection, long id) throws SQLException {
        return balanceOrAbsent(connection, id).orElseThrow();
    }

    private static OptionalLong balanceOrAbsent(Connection connection, long id) throws SQLException {
        return Sql.queryLong(connection, "SELECT balance FROM accounts WHERE id = ?", java.util.List.of(id));
    }
}
