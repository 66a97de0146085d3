package dev.fencing.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.dynamodb.DynamoDbFencedStore;
import dev.fencing.dynamodb.FencedDynamoDb;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.jdbc.RowGuard;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.s3.FencedS3;
import dev.fencing.s3.S3Layout;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.S3TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Benchmarks every provider and store against the best alternative and the physical floor, side
 * by side in one process, interleaved, after warm-up, on servers it starts itself — except that
 * {@code --dynamodb-endpoint} and {@code --s3-endpoint} (or their variables) point comparison 6,
 * {@code --etcd-endpoints} comparison 9 and {@code --zookeeper-connect} comparison 10 at servers
 * already running; the other connection options are not used. A CLI command
 * rather than JMH: every comparison needs real servers and several client libraries in one JVM
 * with interleaved rounds, which is this harness's whole job; JMH would add a forked JVM per
 * benchmark and no way to interleave contenders.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Benchmarks: each provider and store against the best alternative and the raw floor.",
                "Side by side in one process, interleaved rounds after warm-up; medians, p99 and ratios to the baseline.",
                "Starts its own servers; only --dynamodb-endpoint and --s3-endpoint (comparison 6), --etcd-endpoints (9)"
                        + " and --zookeeper-connect (10) are used."})
final class BenchCommand extends FencingCommand {

    @Option(names = "--quick", description = "Small counts (well under 3 minutes): checks the harness, not for quoting.")
    boolean quick;

    @Option(names = "--repeat", paramLabel = "N",
            description = "Run each comparison's measured rounds N times (1-20) after one warm-up and report the median"
                    + " ratio with its min and max; default 3, or 1 with --quick.")
    Integer repeat;

    /** The comparisons, numbered 1 to this. */
    static final int COMPARISONS = 10;

    @Option(names = "--only", split = ",", paramLabel = "N",
            description = "Run only these comparisons (1-10); default all.")
    List<Integer> only;

    private int repeats;
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final List<Map<String, Object>> results = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if (only != null) {
            only.stream().filter(n -> n < 1 || n > COMPARISONS).findFirst().ifPresent(n -> {
                throw new CliException(ExitCode.USAGE, "--only: there is no comparison " + n + "; they are numbered 1 to "
                        + COMPARISONS);
            });
        }
        int repeats = repeat != null ? repeat : quick ? 1 : 3;
        if (repeats < 1 || repeats > BenchRunner.MAX_REPEATS) {
            throw new CliException(ExitCode.USAGE, "--repeat must be between 1 and " + BenchRunner.MAX_REPEATS
                    + " (times each comparison runs), got " + repeats);
        }
        this.repeats = repeats;
        // single-threaded comparisons: many short turns (see BenchRunner); 16 threads: a turn each
        // starts 16 threads, so fewer, longer ones
        int warmup = quick ? 1 : 10;
        int rounds = quick ? 2 : 40;
        BenchRunner runner = new BenchRunner(warmup, rounds, quick ? 50 : 225, repeats);
        BenchRunner threaded = new BenchRunner(quick ? 1 : 3, quick ? 2 : 6, quick ? 25 : 500, repeats);
        BenchRunner sql = new BenchRunner(warmup, rounds, quick ? 25 : 150, repeats);
        BenchRunner slow = new BenchRunner(warmup, rounds, quick ? 10 : 20, repeats);
        try {
            RedisTestServer redis = selected(1) || selected(2) || selected(3)
                    ? closeLater(RedisTestServer.launch()) : null;
            if (selected(1) || selected(2)) {
                redisComparisons(redis, runner, threaded);
            }
            if (selected(3)) {
                contended(redis, quick ? Duration.ofSeconds(1) : Duration.ofSeconds(10));
            }
            if (selected(4) || selected(5)) {
                sqlComparisons(sql, false);
                sqlComparisons(sql, true);
            }
            if (selected(6)) {
                awsComparisons(slow);
            }
            if (selected(7)) {
                redlockComparison(slow);
            }
            if (selected(8)) {
                leftoverKeys(quick ? 200 : 2000);
            }
            ConsensusBench consensus = new ConsensusBench(slow, connections, resources::push);
            if (selected(9)) {
                ConsensusBench.Result etcd = consensus.etcd();
                add(9, "etcd lock vs jetcd's Lock service: acquire + release, one thread, uncontended", etcd.rows(),
                        Map.of("server", etcd.server()));
            }
            if (selected(10)) {
                ConsensusBench.Result zooKeeper = consensus.zooKeeper();
                add(10, "ZooKeeper lock vs Curator's InterProcessMutex: acquire + release, one thread, uncontended",
                        zooKeeper.rows(), Map.of("server", zooKeeper.server()));
            }
            report();
            return ExitCode.OK;
        } finally {
            while (!resources.isEmpty()) {
                try {
                    resources.pop().close();
                } catch (Exception ignored) {
                    // keep closing
                }
            }
        }
    }

    private boolean selected(int comparison) {
        return only == null || only.contains(comparison);
    }

    private RedisTestServer closeLater(RedisTestServer server) {
        resources.push(server::stop);
        return server;
    }

    // ---- 1, 2: Redis cycle, single thread and 16 threads ----

    private void redisComparisons(RedisTestServer redis, BenchRunner runner, BenchRunner threaded) throws Exception {
        RedisClient lettuce = RedisClient.create(redis.uri());
        resources.push(lettuce::shutdown);
        StatefulRedisConnection<String, String> raw = lettuce.connect();
        resources.push(raw);
        RedisCommands<String, String> cmd = raw.sync();
        String unlock = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
        String unlockSha = cmd.scriptLoad(unlock);
        RedisLockProvider ours = RedisLockProvider.create(redis.uri());
        resources.push(ours);
        RedissonClient redisson = redisson(redis.uri());
        LeaseOptions lease = LeaseOptions.ofTtl(Duration.ofSeconds(30));

        List<BenchRunner.Contender> contenders = List.of(
                new BenchRunner.Contender("raw Lettuce SET NX PX + owner-checked DEL script (floor)", (w, i) -> {
                    String key = "raw:" + w;
                    cmd.set(key, "owner-" + w, SetArgs.Builder.nx().px(30_000));
                    cmd.evalsha(unlockSha, ScriptOutputType.INTEGER, new String[] {key}, "owner-" + w);
                }),
                new BenchRunner.Contender("fencing RedisLockProvider tryAcquire + release", (w, i) ->
                        ours.tryAcquire("ours-" + w, lease).orElseThrow().release()),
                new BenchRunner.Contender("Redisson RLock lock + unlock", (w, i) -> {
                    RLock lock = redisson.getLock("rlock-" + w);
                    lock.lock(30, TimeUnit.SECONDS);
                    lock.unlock();
                }),
                new BenchRunner.Contender("Redisson RFencedLock lockAndGetTokenAsync + unlock", (w, i) -> {
                    RFencedLock lock = redisson.getFencedLock("rfenced-" + w);
                    lock.lockAndGetTokenAsync(30, TimeUnit.SECONDS).toCompletableFuture().join();
                    lock.unlock();
                }));
        if (selected(1)) {
            add(1, "Redis lock acquire+release, one thread, uncontended", runner.latency(contenders), Map.of());
        }
        if (selected(2)) {
            add(2, "Redis lock acquire+release, 16 threads on 16 resources (throughput)", threaded.throughput(contenders, 16),
                    Map.of());
        }
        long allocated = allocatedPerCycle(() -> ours.tryAcquire("alloc", lease).orElseThrow().release(),
                quick ? 500 : 2000);
        results.get(results.size() - 1).put("oursAllocatedBytesPerCycle", allocated);
    }

    private RedissonClient redisson(String uri) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(4).setConnectionPoolSize(32);
        RedissonClient client = Redisson.create(config);
        resources.push(client::shutdown);
        return client;
    }

    private static long allocatedPerCycle(Runnable cycle, int cycles) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < cycles; i++) {
            cycle.run(); // warm up
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < cycles; i++) {
            cycle.run();
        }
        return (threads.getCurrentThreadAllocatedBytes() - before) / cycles;
    }

    // ---- 3: contended hand-off ----

    private void contended(RedisTestServer redis, Duration duration) throws Exception {
        RedisLockProvider ours = RedisLockProvider.create(redis.uri());
        resources.push(ours);
        RedissonClient redisson = redisson(redis.uri());
        List<Map<String, Object>> rows = new ArrayList<>();
        double[] ratios = new double[repeats];
        for (int round = 0; round < repeats; round++) {
            rows.add(handOff("fencing RedisLockProvider acquire + release", duration, (w, stop) -> {
                Lease lease = ours.acquire("contended-ours", LeaseOptions.builder().ttl(Duration.ofSeconds(30))
                        .waitTimeout(Duration.ofSeconds(30)).build());
                return lease::release;
            }));
            rows.add(handOff("Redisson RLock lock + unlock", duration, (w, stop) -> {
                RLock lock = redisson.getLock("contended-redisson");
                lock.lock(30, TimeUnit.SECONDS);
                return lock::unlock;
            }));
            ratios[round] = ((Number) rows.get(rows.size() - 2).get("opsPerSecond")).doubleValue()
                    / Math.max(1, ((Number) rows.get(rows.size() - 1).get("opsPerSecond")).doubleValue());
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("comparison", 3);
        result.put("title", "Contended hand-off: 8 workers on one resource, " + duration.toSeconds()
                + " s per contender per round, " + repeats + " interleaved round(s), one per repeat");
        result.put("repeats", repeats);
        result.put("oursToRedissonAcquisitions", spread(ratios));
        result.put("rows", rows);
        results.add(result);
    }

    @FunctionalInterface
    private interface Acquirer {
        Runnable acquire(int worker, AtomicReference<Boolean> stop) throws Exception;
    }

    private static Map<String, Object> handOff(String name, Duration duration, Acquirer acquirer) throws Exception {
        int workers = 8;
        AtomicLong lastRelease = new AtomicLong();
        AtomicInteger lastHolder = new AtomicInteger(-1);
        List<Long> handOffs = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger toOther = new AtomicInteger();
        AtomicInteger total = new AtomicInteger();
        int[] perWorker = new int[workers];
        long end = System.nanoTime() + duration.toNanos();
        AtomicReference<Boolean> stop = new AtomicReference<>(false);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        Runnable release = acquirer.acquire(worker, stop);
                        long acquired = System.nanoTime();
                        int previous = lastHolder.getAndSet(worker);
                        if (previous >= 0 && previous != worker) {
                            handOffs.add(acquired - lastRelease.get());
                            toOther.incrementAndGet();
                        }
                        total.incrementAndGet();
                        perWorker[worker]++;
                        lastRelease.set(System.nanoTime());
                        release.run();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        long[] sorted = handOffs.stream().mapToLong(Long::longValue).sorted().toArray();
        int min = Arrays.stream(perWorker).min().orElse(0);
        int max = Arrays.stream(perWorker).max().orElse(1);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("contender", name);
        row.put("acquisitions", total.get());
        row.put("opsPerSecond", Math.round(total.get() / (duration.toNanos() / 1e9)));
        row.put("handOffP50Micros", BenchRunner.round(BenchRunner.percentile(sorted, 0.5) / 1e3));
        row.put("handOffP99Micros", BenchRunner.round(BenchRunner.percentile(sorted, 0.99) / 1e3));
        row.put("handedToAnotherThread", BenchRunner.round((double) toOther.get() / Math.max(1, total.get())));
        row.put("leastToMostServed", BenchRunner.round((double) min / Math.max(1, max)));
        return row;
    }

    // ---- 4, 5: Postgres advisory and JDBC, with and without durable commits ----

    private void sqlComparisons(BenchRunner runner, boolean durable) throws Exception {
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

    // ---- 6: DynamoDB and S3 ----

    private void awsComparisons(BenchRunner runner) throws Exception {
        String dynamoServer = connections.dynamoDbEndpoint().map(e -> "the DynamoDB endpoint " + e)
                .orElse("dynalite 4.0 (Node.js), same machine");
        String dynamoEndpoint = connections.dynamoDbEndpoint().orElseGet(() -> {
            DynamoDbTestServer dynalite = DynamoDbTestServer.launch();
            resources.push(dynalite::stop);
            return dynalite.endpoint();
        });
        DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(URI.create(dynamoEndpoint))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))).build();
        resources.push(dynamo);
        DynamoDbFencedStore.createTable(dynamo, "bench", "pk");
        FencedDynamoDb fencedDynamo = FencedDynamoDb.create(dynamo);
        // above the marks an earlier run left on a server given by an option: microseconds of the clock
        AtomicLong tokens = new AtomicLong(System.currentTimeMillis() * 1000);
        add(6, "DynamoDB (dynalite): fenced PutItem / UpdateItem vs plain", runner.latency(List.of(
                new BenchRunner.Contender("plain PutItem", (w, i) -> dynamo.putItem(put("plain", i))),
                new BenchRunner.Contender("plain PutItem with the same attributes and condition, written by hand", (w, i) ->
                        dynamo.putItem(conditionalPut("by-hand", i, tokens.incrementAndGet()))),
                new BenchRunner.Contender("FencedDynamoDb.putItem", (w, i) ->
                        fencedDynamo.putItem(FencingToken.of("f", tokens.incrementAndGet()), put("fenced", i))),
                new BenchRunner.Contender("plain UpdateItem", (w, i) -> dynamo.updateItem(update("plain-u", i))),
                new BenchRunner.Contender("FencedDynamoDb.updateItem", (w, i) ->
                        fencedDynamo.updateItem(FencingToken.of("f", tokens.incrementAndGet()), update("fenced-u", i))))),
                Map.of("server", dynamoServer));

        String s3Server = connections.s3Endpoint().map(e -> "the S3 endpoint " + e)
                .orElse("S3Mock 5.2 (JVM child process), same machine");
        String s3Endpoint = connections.s3Endpoint().orElseGet(() -> {
            S3TestServer s3mock = S3TestServer.launch();
            resources.push(s3mock::stop);
            return s3mock.endpoint();
        });
        S3Client s3 = S3Client.builder().endpointOverride(URI.create(s3Endpoint)).forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench"))).build();
        resources.push(s3);
        try {
            s3.createBucket(r -> r.bucket("bench"));
        } catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException exists) {
            // a server given by an option, benchmarked before
        }
        FencedS3 warm = FencedS3.builder(s3).layout(S3Layout.IN_PLACE).build();
        FencedS3 cold = FencedS3.builder(s3).layout(S3Layout.IN_PLACE).etagCacheSize(0).build();
        FencedS3 pointerWarm = FencedS3.create(s3);
        FencedS3 pointerCold = FencedS3.builder(s3).etagCacheSize(0).build();
        add(6, "S3 (S3Mock): fenced PutObject in both layouts, cold and warm ETag cache, vs plain", runner.latency(List.of(
                new BenchRunner.Contender("plain PutObject", (w, i) ->
                        s3.putObject(PutObjectRequest.builder().bucket("bench").key("plain").build(), body(i))),
                new BenchRunner.Contender("FencedS3 IN_PLACE, cold cache (HEAD + PUT)", (w, i) ->
                        cold.putObject(FencingToken.of("c", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("cold").build(), body(i))),
                new BenchRunner.Contender("FencedS3 IN_PLACE, warm cache (PUT)", (w, i) ->
                        warm.putObject(FencingToken.of("w", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("warm").build(), body(i))),
                new BenchRunner.Contender("FencedS3 POINTER, cold cache (HEAD + PUT data + PUT pointer + DELETE old data)",
                        (w, i) -> pointerCold.putObject(FencingToken.of("pc", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("pointer-cold").build(), body(i))),
                new BenchRunner.Contender("FencedS3 POINTER, warm cache (PUT data + PUT pointer + DELETE old data)",
                        (w, i) -> pointerWarm.putObject(FencingToken.of("pw", tokens.incrementAndGet()),
                                PutObjectRequest.builder().bucket("bench").key("pointer-warm").build(), body(i))))),
                Map.of("server", s3Server));
    }

    private static PutItemRequest put(String key, long i) {
        return PutItemRequest.builder().tableName("bench").item(Map.of("pk", AttributeValue.fromS(key),
                "n", AttributeValue.fromN(Long.toString(i)))).build();
    }

    /** What the fenced put sends: the token attribute, its condition, the old item on failure. */
    /**
     * The request {@code FencedDynamoDb.putItem} sends, written by hand: the same attributes (token,
     * lock name, write id) and the same three-clause condition, so the row beside it shows the
     * wrapper's own cost. (On dynalite the condition's length is most of a fenced put's cost: it
     * evaluates the three clauses in ~3 ms against ~1.4 ms for the token clause alone.)
     */
    private static PutItemRequest conditionalPut(String key, long i, long token) {
        String writeId = Long.toHexString(token) + "-" + i;
        return PutItemRequest.builder().tableName("bench").item(Map.of("pk", AttributeValue.fromS(key),
                        "n", AttributeValue.fromN(Long.toString(i)), "fencing_token", AttributeValue.fromN(Long.toString(token)),
                        "fencing_resource", AttributeValue.fromS("f"), "fencing_write", AttributeValue.fromS(writeId)))
                .conditionExpression("((attribute_not_exists(#fr) OR #fr = :fr) AND (attribute_not_exists(#ft) OR"
                        + " #ft <= :ft)) AND (attribute_not_exists(#fw) OR #fw <> :fw)")
                .expressionAttributeNames(Map.of("#ft", "fencing_token", "#fr", "fencing_resource", "#fw", "fencing_write"))
                .expressionAttributeValues(Map.of(":ft", AttributeValue.fromN(Long.toString(token)),
                        ":fr", AttributeValue.fromS("f"), ":fw", AttributeValue.fromS(writeId)))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build();
    }

    private static UpdateItemRequest update(String key, long i) {
        return UpdateItemRequest.builder().tableName("bench").key(Map.of("pk", AttributeValue.fromS(key)))
                .updateExpression("SET n = :n").expressionAttributeValues(Map.of(":n", AttributeValue.fromN(Long.toString(i))))
                .build();
    }

    private static RequestBody body(long i) {
        return RequestBody.fromString("payload " + i);
    }

    // ---- 7: Redlock, directly and with a round trip injected per node (RedlockBench) ----

    private void redlockComparison(BenchRunner runner) throws Exception {
        for (RedlockBench.Table table : new RedlockBench(runner).run()) {
            add(7, table.title(), table.rows(), table.settings());
        }
    }

    // ---- 8: keys left behind ----

    private void leftoverKeys(int cycles) throws Exception {
        RedisTestServer fresh = closeLater(RedisTestServer.launch());
        int resourceCount = 10;
        try (RedisLockProvider ours = RedisLockProvider.create(fresh.uri())) {
            for (int i = 0; i < cycles; i++) {
                ours.tryAcquire("leak-" + (i % resourceCount), LeaseOptions.ofDefaults()).orElseThrow().release();
            }
        }
        long oursKeys = Long.parseLong(String.valueOf(fresh.command("DBSIZE")));
        fresh.flushAll();
        RedissonClient redisson = redisson(fresh.uri());
        for (int i = 0; i < cycles; i++) {
            RLock lock = redisson.getLock("leak-" + (i % resourceCount));
            lock.lock(30, TimeUnit.SECONDS);
            lock.unlock();
        }
        long redissonKeys = Long.parseLong(String.valueOf(fresh.command("DBSIZE")));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("comparison", 8);
        result.put("title", "Keys left behind after " + cycles + " acquire+release cycles on " + resourceCount + " resources");
        result.put("rows", List.of(
                Map.of("contender", "fencing RedisLockProvider", "keysLeft", oursKeys, "expected", resourceCount
                        + " token counters (idle expiry 30 days)"),
                Map.of("contender", "Redisson RLock (counted right after the run)", "keysLeft", redissonKeys)));
        results.add(result);
    }

    // ---- reporting ----

    /** {@code row}'s throughput over {@code baseline}'s, repeat by repeat (both measured in the same turns). */
    static double[] ratiosTo(BenchRunner.Row row, BenchRunner.Row baseline) {
        double[] ratios = new double[row.ratios().size()];
        for (int r = 0; r < ratios.length; r++) {
            ratios[r] = row.ratios().get(r) / baseline.ratios().get(r);
        }
        return ratios;
    }

    /** The median of {@code values} with their minimum and maximum, rounded to two decimals. */
    static Map<String, Object> spread(double[] values) {
        Map<String, Object> spread = new LinkedHashMap<>();
        spread.put("median", BenchRunner.round(BenchRunner.median(values)));
        spread.put("min", BenchRunner.round(Arrays.stream(values).min().orElseThrow()));
        spread.put("max", BenchRunner.round(Arrays.stream(values).max().orElseThrow()));
        return spread;
    }

    private void add(int comparison, String title, List<BenchRunner.Row> rows, Map<String, Object> settings) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("comparison", comparison);
        result.put("title", title);
        result.put("repeats", repeats);
        result.putAll(settings);
        result.put("rows", rows.stream().map(BenchRunner.Row::toMap).toList());
        results.add(result);
    }

    private void report() {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("machine", Map.of(
                "cores", Runtime.getRuntime().availableProcessors(),
                "os", System.getProperty("os.name") + " " + System.getProperty("os.version"),
                "java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"),
                "maxHeapMb", Runtime.getRuntime().maxMemory() / (1024 * 1024)));
        report.put("mode", quick ? "quick (harness check, not for quoting)" : "full");
        report.put("repeats", repeats);
        report.put("servers", "all on this machine unless comparisons 6, 9 and 10 say otherwise: redis-server 6.2"
                + " (embedded-redis), PostgreSQL 17 (zonky), dynalite 4.0, S3Mock 5.2, etcd (Debian's etcd-server),"
                + " ZooKeeper 3.9 (curator-test, in this JVM)");
        report.put("results", results);
        if (json) {
            Json.print(out(), report);
        } else {
            BenchReport.printText(out(), report, results);
        }
        out().flush();
    }
}
