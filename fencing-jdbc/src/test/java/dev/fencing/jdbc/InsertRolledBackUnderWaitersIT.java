package dev.fencing.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.testkit.servers.SqlTestServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two writers of a new key wait on a third writer's {@code INSERT} of it, and that insert rolls back:
 * the table is one of the application's own, with another unique column, and the third writer's value
 * is taken by a transaction that commits while they wait. On MariaDB the two waiters then deadlock
 * (InnoDB's three-inserter case, error 1213) and the victim's insert is rolled back; the store must
 * run its round again rather than hand out the deadlock (it did, 10 rounds of 10, found by an
 * adversary's test). Every writer's store is an instance of its own, as in separate processes.
 */
class InsertRolledBackUnderWaitersIT {

    private static final int ROUNDS = 3;
    private static final Duration WAIT = Duration.ofSeconds(30);

    static Stream<Arguments> databases() {
        return Stream.of(Arguments.of(Databases.mariaDb(), Connection.TRANSACTION_REPEATABLE_READ),
                Arguments.of(Databases.mariaDb(), Connection.TRANSACTION_READ_COMMITTED),
                Arguments.of(Databases.postgres(), Connection.TRANSACTION_READ_COMMITTED));
    }

    @ParameterizedTest(name = "{0} at isolation {1}")
    @MethodSource("databases")
    void writersWaitingOnAnInsertThatRollsBackAreWrittenOrStale(SqlTestServer server, int isolation) throws Exception {
        boolean postgres = server.vendor().equals("postgresql");
        String table = "own_items_" + UUID.randomUUID().toString().substring(0, 8);
        String keyType = postgres ? "VARCHAR(256) COLLATE \"C\"" : "VARBINARY(1024)";
        DataSource raw = Databases.migrated(server);
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (item_key " + keyType + " NOT NULL PRIMARY KEY,"
                    + " item_value VARCHAR(100) UNIQUE, token BIGINT NOT NULL, version BIGINT NOT NULL,"
                    + " fence_resource " + keyType + ", updated_at " + (postgres ? "TIMESTAMP" : "DATETIME(6)")
                    + " NOT NULL DEFAULT CURRENT_TIMESTAMP" + (postgres ? "" : "(6)") + ")");
        }
        DataSource isolated = new IsolatedDataSource(raw, isolation);
        for (int round = 0; round < ROUNDS; round++) {
            String key = "k-" + UUID.randomUUID();
            String taken = "taken-" + UUID.randomUUID().toString().substring(0, 20);
            CountDownLatch releaseInserts = new CountDownLatch(1);
            AtomicInteger heldInserts = new AtomicInteger();
            DataSource gated = insertsHeldUntil(releaseInserts, heldInserts, isolated);
            FencedStore third = JdbcFencedStore.builder(isolated).table(table).build();
            FencedStore newer = JdbcFencedStore.builder(gated).table(table).build();
            FencedStore older = JdbcFencedStore.builder(gated).table(table).build();
            try (Connection application = raw.getConnection()) {
                application.setAutoCommit(false); // holds the value the third writer will write
                try (PreparedStatement insert = application.prepareStatement("INSERT INTO " + table
                        + " (item_key, item_value, token, version) VALUES (?, ?, 1, 1)")) {
                    insert.setString(1, "app-" + UUID.randomUUID());
                    insert.setString(2, taken);
                    insert.executeUpdate();
                }
                // the two found no row and are about to insert the key
                CompletableFuture<String> b = CompletableFuture.supplyAsync(() -> write(newer, key, "b-" + key, 102));
                CompletableFuture<String> c = CompletableFuture.supplyAsync(() -> write(older, key, "c-" + key, 101));
                await().atMost(WAIT).until(() -> heldInserts.get() == 2);
                // the third inserts the key, then waits on the application's value
                CompletableFuture<String> a = CompletableFuture.supplyAsync(() -> write(third, key, taken, 103));
                await().atMost(WAIT).until(() -> waiting(raw, postgres, table) == 1);
                releaseInserts.countDown();
                await().atMost(WAIT).until(() -> waiting(raw, postgres, table) == 3); // both wait on the third's key
                application.commit(); // the third's insert fails on the value and rolls back
                assertThat(a.get(60, TimeUnit.SECONDS)).as("round %d: the third writer's value is taken", round)
                        .startsWith("refused by the database");
                assertThat(b.get(60, TimeUnit.SECONDS)).as("round %d, token 102", round).isEqualTo("written");
                assertThat(c.get(60, TimeUnit.SECONDS)).as("round %d, token 101", round).isIn("written", "stale");
                assertThat(newer.read(key)).as("round %d", round).contains(new StoredValue(key, "b-" + key, 102));
            }
        }
    }

    private static String write(FencedStore store, String key, String value, long token) {
        try {
            store.write(FencingToken.of("own-items-lock", token), key, value);
            return "written";
        } catch (StaleTokenException e) {
            return "stale";
        } catch (UncheckedSqlException e) {
            return "refused by the database: " + e.getMessage();
        }
    }

    /** Statements on {@code table} waiting for a lock, as the database reports them. */
    private static int waiting(DataSource raw, boolean postgres, String table) throws SQLException {
        String sql = postgres
                ? "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE ?"
                : "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE ?";
        try (Connection c = raw.getConnection(); PreparedStatement count = Sql.prepare(c, sql, List.of("%" + table + "%"));
                ResultSet row = count.executeQuery()) {
            row.next();
            return row.getInt(1);
        }
    }

    /** {@code delegate}'s connections, whose {@code INSERT}s are prepared only once {@code release} opens. */
    private static DataSource insertsHeldUntil(CountDownLatch release, AtomicInteger held, DataSource delegate) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = forward(method, delegate, args);
                    return result instanceof Connection connection ? holdingInserts(connection, release, held) : result;
                });
    }

    private static Connection holdingInserts(Connection connection, CountDownLatch release, AtomicInteger held) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args[0] instanceof String sql
                            && sql.startsWith("INSERT")) {
                        held.incrementAndGet();
                        if (!release.await(60, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("the test never released the insert");
                        }
                    }
                    return forward(method, connection, args);
                });
    }

    private static Object forward(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
