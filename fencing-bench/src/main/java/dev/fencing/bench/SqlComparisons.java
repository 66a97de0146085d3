package dev.fencing.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.jdbc.RowGuard;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.testkit.servers.PostgresTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Comparisons 4 and 5: the Postgres advisory lock against the least a lock with a durable token
 * can send, and the JDBC fences against plain statements and transactions, with the round trips
 * each contender makes.
 */
final class SqlComparisons extends Comparisons {

    SqlComparisons(BenchSession session) {
        super(session);
    }

    // ---- 4, 5: Postgres advisory and JDBC, with and without durable commits ----

    void sqlComparisons(BenchRunner runner, boolean durable) throws Exception {
        PostgresTestServer server = durable
                ? PostgresTestServer.launch(Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on"))
                : PostgresTestServer.launch();
        resources.push(server::stop);
        String settings = durable ? "fsync=on, synchronous_commit=on (durable)" : "fsync=off, synchronous_commit=off"
                + " (embedded default)";
        HikariConfig config = new HikariConfig();
        PGSimpleDataSource counted = (PGSimpleDataSource) server.dataSource();
        counted.setSocketFactory(RoundTrips.class.getName()); // to report round trips per operation
        config.setDataSource(counted);
        config.setMaximumPoolSize(20);
        HikariDataSource pool = new HikariDataSource(config);
        resources.push(pool);
        FencingMigrations.migrate(pool);
        try (Connection setup = pool.getConnection(); Statement statement = setup.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS bench_accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO bench_accounts (id, balance) VALUES (1, 0) ON CONFLICT DO NOTHING");
        }
        if (selected(4)) {
            PostgresAdvisoryLockProvider ours = PostgresAdvisoryLockProvider.create(pool);
            resources.push(ours);
            Connection bare = pool.getConnection();
            resources.push(bare);
            PreparedStatement lock = bare.prepareStatement("SELECT pg_advisory_lock(42)");
            PreparedStatement unlock = bare.prepareStatement("SELECT pg_advisory_unlock(42)");
            PreparedStatement token = bare.prepareStatement("INSERT INTO fencing_token_counter (resource, token)"
                    + " VALUES ('bench-pair', 1) ON CONFLICT (resource) DO UPDATE SET token = fencing_token_counter.token + 1"
                    + " RETURNING token");
            PreparedStatement lockAndWrite = bare.prepareStatement(LOCK_AND_COMMITTED_WRITE);
            PreparedStatement unlockFloor = bare.prepareStatement("SELECT pg_advisory_unlock(43)");
            LeaseOptions lease = LeaseOptions.ofTtl(Duration.ofSeconds(30));
            List<BenchRunner.Contender> contenders = List.of(
                    new BenchRunner.Contender("the bare pair plus one committed write, by hand: pg_try_advisory_lock and the"
                            + " counter upsert in one statement, committed durably; pg_advisory_unlock (floor)", (w, i) -> {
                                try (ResultSet granted = lockAndWrite.executeQuery()) {
                                    if (!granted.next() || !granted.getBoolean(1) || granted.getLong(2) == 0) {
                                        throw new IllegalStateException("the hand-written grant took no lock or no token");
                                    }
                                }
                                unlockFloor.executeQuery().close();
                            }),
                    new BenchRunner.Contender("bare pg_advisory_lock + pg_advisory_unlock (no token, nothing written)",
                            (w, i) -> {
                                lock.executeQuery().close();
                                unlock.executeQuery().close();
                            }),
                    new BenchRunner.Contender("naive: pg_advisory_lock, the counter upsert as a statement of its own,"
                            + " pg_advisory_unlock (committed as the server's default)", (w, i) -> {
                                lock.executeQuery().close();
                                token.executeQuery().close();
                                unlock.executeQuery().close();
                            }),
                    new BenchRunner.Contender("fencing PostgresAdvisoryLockProvider tryAcquire + release", (w, i) ->
                            ours.tryAcquire("bench", lease).orElseThrow().release()));
            add(4, "Postgres advisory lock: acquire + token + release (" + settings + ")", runner.latency(contenders),
                    Map.of("postgres", settings));
            countRoundTrips(contenders);
        }
        if (selected(5)) {
            Connection connection = pool.getConnection();
            resources.push(connection);
            PreparedStatement plainUpdate = connection.prepareStatement("UPDATE bench_accounts SET balance = ? WHERE id = 1");
            RowGuard accounts = RowGuard.create("bench_accounts", "id");
            AtomicLong tokens = new AtomicLong(1);
            JdbcFence fence = JdbcFence.create(pool);
            List<BenchRunner.Contender> contenders = List.of(
                    new BenchRunner.Contender("plain UPDATE (autocommit)", (w, i) -> {
                        plainUpdate.setLong(1, i);
                        plainUpdate.executeUpdate();
                    }),
                    new BenchRunner.Contender("plain UPDATE prepared per call, as a DAO does", (w, i) -> {
                        try (PreparedStatement update = connection.prepareStatement(
                                "UPDATE bench_accounts SET balance = ? WHERE id = 1")) {
                            update.setLong(1, i);
                            update.executeUpdate();
                        }
                    }),
                    new BenchRunner.Contender("the guarded UPDATE RowGuard sends, written by hand", (w, i) -> {
                        try (PreparedStatement update = connection.prepareStatement("UPDATE bench_accounts SET"
                                + " balance = ?, fencing_token = ? WHERE id = ? AND fencing_token <= ?")) {
                            long token = tokens.incrementAndGet();
                            update.setObject(1, i);
                            update.setObject(2, token);
                            update.setObject(3, 1L);
                            update.setObject(4, token);
                            update.executeUpdate();
                        }
                    }),
                    new BenchRunner.Contender("RowGuard.update (autocommit)", (w, i) ->
                            accounts.update(connection, FencingToken.of("bench", tokens.incrementAndGet()),
                                    Map.of("id", 1L), Map.of("balance", i))),
                    new BenchRunner.Contender("plain transaction: BEGIN, UPDATE, COMMIT", (w, i) ->
                            plainTransaction(pool, i, false)),
                    new BenchRunner.Contender("plain transaction with a second UPDATE", (w, i) ->
                            plainTransaction(pool, i, true)),
                    new BenchRunner.Contender("BEGIN, the fence upsert JdbcFence sends written by hand, UPDATE, COMMIT",
                            (w, i) -> fenceByHand(pool, tokens.incrementAndGet(), i)),
                    new BenchRunner.Contender("JdbcFence transaction: fence row, UPDATE, COMMIT", (w, i) ->
                            fence.inTransaction(FencingToken.of("bench-fence", tokens.incrementAndGet()), tx -> {
                                try (PreparedStatement update = tx.prepareStatement(
                                        "UPDATE bench_accounts SET balance = ? WHERE id = 1")) {
                                    update.setLong(1, i);
                                    return update.executeUpdate();
                                }
                            })));
            List<BenchRunner.Row> rows = runner.latency(contenders);
            add(5, "JDBC: fenced UPDATE vs plain; fence-row transaction vs plain transaction (" + settings + ")", rows,
                    Map.of("postgres", settings));
            countRoundTrips(contenders);
            // the transactions' own baseline is the plain transaction (row 4): each repeat's ratio to it
            Map<String, Object> result = results.get(results.size() - 1);
            result.put("fenceTransactionToPlainTransaction", spread(ratiosTo(rows.get(7), rows.get(4))));
            result.put("fenceByHandToPlainTransaction", spread(ratiosTo(rows.get(6), rows.get(4))));
            result.put("secondUpdateToPlainTransaction", spread(ratiosTo(rows.get(5), rows.get(4))));
            result.put("rowGuardUpdateToPlainTransaction", spread(ratiosTo(rows.get(3), rows.get(4))));
        }
    }

    /**
     * The least a Postgres lock with a durable token can send: the lock, and only if taken the
     * counter's upsert with the provider's token rule, committed durably whatever the server's
     * default (as the provider commits it), in one statement; the unlock is a second.
     */
    private static final String LOCK_AND_COMMITTED_WRITE = "WITH lock AS (SELECT pg_try_advisory_lock(43) AS taken,"
            + " set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on'"
            + " WHEN 'local' THEN 'on' ELSE current_setting('synchronous_commit') END, true) AS durable),"
            + " granted AS (INSERT INTO fencing_token_counter AS c (resource, token)"
            + " SELECT 'bench-floor', (extract(epoch FROM clock_timestamp()) * 1000000)::bigint FROM lock"
            + " WHERE lock.taken AND lock.durable IS NOT NULL ON CONFLICT (resource) DO UPDATE SET token ="
            + " GREATEST(c.token + 1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint),"
            + " updated_at = CURRENT_TIMESTAMP RETURNING c.token)"
            + " SELECT lock.taken, (SELECT token FROM granted) FROM lock";

    /** Adds to the last result's rows the round trips each contender makes, counted by {@link RoundTrips}. */
    private void countRoundTrips(List<BenchRunner.Contender> contenders) throws Exception {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) results.get(results.size() - 1).get("rows");
        for (int c = 0; c < contenders.size(); c++) {
            rows.get(c).put("roundTripsPerOp", roundTripsPerOp(contenders.get(c).op()));
        }
    }

    private static void plainTransaction(DataSource pool, long i, boolean secondUpdate) throws Exception {
        try (Connection tx = pool.getConnection()) {
            tx.setAutoCommit(false);
            try (PreparedStatement update = tx.prepareStatement("UPDATE bench_accounts SET balance = ? WHERE id = 1")) {
                update.setLong(1, i);
                update.executeUpdate();
                if (secondUpdate) {
                    update.setLong(1, i + 1);
                    update.executeUpdate();
                }
            }
            tx.commit();
            tx.setAutoCommit(true);
        }
    }

    /** What a JdbcFence transaction sends, in raw JDBC: the fence upsert first, then the caller's UPDATE. */
    private static void fenceByHand(DataSource pool, long token, long i) throws Exception {
        try (Connection tx = pool.getConnection()) {
            tx.setAutoCommit(false);
            try (PreparedStatement fence = tx.prepareStatement("INSERT INTO fencing_fence (kind, resource, token,"
                    + " updated_at) VALUES ('lock', ?, ?, CURRENT_TIMESTAMP) ON CONFLICT (kind, resource) DO UPDATE SET"
                    + " token = EXCLUDED.token, updated_at = CURRENT_TIMESTAMP WHERE fencing_fence.token <= EXCLUDED.token")) {
                fence.setString(1, "bench-fence-by-hand");
                fence.setLong(2, token);
                if (fence.executeUpdate() != 1) {
                    throw new IllegalStateException("the hand-written fence refused token " + token);
                }
            }
            try (PreparedStatement update = tx.prepareStatement("UPDATE bench_accounts SET balance = ? WHERE id = 1")) {
                update.setLong(1, i);
                update.executeUpdate();
            }
            tx.commit();
            tx.setAutoCommit(true);
        }
    }

    /** Round trips to the server per operation, counted by {@link RoundTrips} over 200 operations. */
    private static double roundTripsPerOp(BenchRunner.Op op) throws Exception {
        int ops = 200;
        long before = RoundTrips.count();
        for (int i = 0; i < ops; i++) {
            op.run(0, i);
        }
        return BenchRunner.round((double) (RoundTrips.count() - before) / ops);
    }
}
