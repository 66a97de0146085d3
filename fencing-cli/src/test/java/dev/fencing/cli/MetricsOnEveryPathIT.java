package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.dynamodb.DynamoDbFencedStore;
import dev.fencing.dynamodb.FencedDynamoDb;
import dev.fencing.dynamodb.FencedDynamoDbAsync;
import dev.fencing.dynamodb.lock.DynamoDbLockProvider;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.jdbc.JdbiFence;
import dev.fencing.jdbc.RowGuard;
import dev.fencing.micrometer.MicrometerFencingListener;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.redis.RedisFencedStore;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.redis.RedlockProvider;
import dev.fencing.s3.FencedS3;
import dev.fencing.s3.FencedS3Async;
import dev.fencing.s3.S3FencedStore;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.S3TestServer;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * What an operator sees, on every path a user can write or hold a lease through: each writer, given
 * a {@link MicrometerFencingListener}, counts a zombie's refused write in
 * {@code fencing.store.writes{outcome=stale}} (one per refusal, tagged with the writer), and each
 * provider counts a lease found lost after a takeover in {@code fencing.lease.lost}. Real servers,
 * two client instances where a lease is taken over.
 */
class MetricsOnEveryPathIT {

    private static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();
    private static final List<AutoCloseable> OPENED = new ArrayList<>();

    @AfterAll
    static void close() throws Exception {
        for (int i = OPENED.size() - 1; i >= 0; i--) {
            OPENED.get(i).close();
        }
    }

    private static FencingListener writer(String name) {
        return MicrometerFencingListener.builder(REGISTRY).store(name).build();
    }

    private static double stale(String writer) {
        return REGISTRY.get("fencing.store.writes").tag("store", writer).tag("outcome", "stale").counter().count();
    }

    private static FencingToken token(String resource, long value) {
        return FencingToken.of(resource, value);
    }

    private static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    // ---- writers ----

    @Test
    void theSqlWritersCountEachRefusedWrite() throws SQLException {
        DataSource db = TestServers.postgres().freshDatabase();
        FencingMigrations.migrate(db);
        try (Connection connection = db.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL,"
                    + " fencing_token BIGINT NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO accounts (id, balance) VALUES (1, 0)");
        }

        JdbcFence jdbcFence = JdbcFence.builder(db).listener(writer("jdbc-fence")).build();
        String lock = unique("fence");
        jdbcFence.inTransaction(token(lock, 2), connection -> null);
        assertThatThrownBy(() -> jdbcFence.inTransaction(token(lock, 1), connection -> null))
                .isInstanceOf(StaleTokenException.class);

        JdbiFence jdbiFence = JdbiFence.builder(Jdbi.create(db)).listener(writer("jdbi-fence")).build();
        String jdbiLock = unique("jdbi");
        jdbiFence.inTransaction(token(jdbiLock, 2), handle -> null);
        assertThatThrownBy(() -> jdbiFence.inTransaction(token(jdbiLock, 1), handle -> null))
                .isInstanceOf(StaleTokenException.class);

        RowGuard rows = RowGuard.builder("accounts", "id").listener(writer("row-guard")).build();
        String rowLock = unique("row");
        try (Connection connection = db.getConnection()) {
            assertThat(rows.update(connection, token(rowLock, 2), Map.of("id", 1L), Map.of("balance", 2L))).isTrue();
            assertThatThrownBy(() -> rows.update(connection, token(rowLock, 1), Map.of("id", 1L), Map.of("balance", 1L)))
                    .isInstanceOf(StaleTokenException.class);
        }

        refusesTheOlderToken(JdbcFencedStore.builder(db).listener(writer("jdbc-store")).build());

        assertThat(List.of(stale("jdbc-fence"), stale("jdbi-fence"), stale("row-guard"), stale("jdbc-store")))
                .as("refused writes counted per writer").containsOnly(1.0);
    }

    @Test
    void theDynamoDbWritersCountEachRefusedWrite() {
        String endpoint = TestServers.dynamoDb().endpoint();
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(endpoint))
                .region(Region.of(DynamoDbTestServer.REGION)).credentialsProvider(credentials())
                .build();
        DynamoDbAsyncClient async = DynamoDbAsyncClient.builder().endpointOverride(URI.create(endpoint))
                .region(Region.of(DynamoDbTestServer.REGION)).credentialsProvider(credentials()).build();
        OPENED.add(client);
        OPENED.add(async);
        String table = unique("metrics");
        DynamoDbFencedStore.createTable(client, table, "pk");

        refusesTheOlderToken(DynamoDbFencedStore.builder(client, table).keyAttribute("pk").listener(writer("dynamodb-store")).build());

        FencedDynamoDb fenced = FencedDynamoDb.builder(client).listener(writer("dynamodb")).build();
        String item = unique("item");
        Function<String, PutItemRequest> put = value -> PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(item), "value", AttributeValue.fromS(value))).build();
        fenced.putItem(token(item, 2), put.apply("newer"));
        assertThatThrownBy(() -> fenced.putItem(token(item, 1), put.apply("zombie")))
                .isInstanceOf(StaleTokenException.class);

        FencedDynamoDbAsync fencedAsync = FencedDynamoDbAsync.builder(async).listener(writer("dynamodb-async")).build();
        String asyncItem = unique("item");
        Function<String, PutItemRequest> asyncPut = value -> PutItemRequest.builder().tableName(table)
                .item(Map.of("pk", AttributeValue.fromS(asyncItem), "value", AttributeValue.fromS(value))).build();
        fencedAsync.putItem(token(asyncItem, 2), asyncPut.apply("newer")).join();
        assertThatThrownBy(() -> fencedAsync.putItem(token(asyncItem, 1), asyncPut.apply("zombie")).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);

        assertThat(List.of(stale("dynamodb-store"), stale("dynamodb"), stale("dynamodb-async")))
                .as("refused writes counted per writer").containsOnly(1.0);
    }

    @Test
    void theS3WritersCountEachRefusedWrite() {
        String endpoint = TestServers.s3().atomicEndpoint();
        S3Client s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION)).credentialsProvider(credentials())
                .build();
        S3AsyncClient s3Async = S3AsyncClient.builder().endpointOverride(URI.create(endpoint)).forcePathStyle(true)
                .region(Region.of(S3TestServer.REGION)).credentialsProvider(credentials()).build();
        OPENED.add(s3);
        OPENED.add(s3Async);
        String bucket = unique("metrics");
        s3.createBucket(request -> request.bucket(bucket));

        refusesTheOlderToken(S3FencedStore.builder(s3, bucket).keyPrefix("store/").listener(writer("s3-store")).build());

        FencedS3 fenced = FencedS3.builder(s3).listener(writer("s3")).build();
        String key = unique("object");
        PutObjectRequest put = PutObjectRequest.builder().bucket(bucket).key(key).build();
        fenced.putObject(token(key, 2), put, RequestBody.fromString("newer"));
        assertThatThrownBy(() -> fenced.putObject(token(key, 1), put, RequestBody.fromString("zombie")))
                .isInstanceOf(StaleTokenException.class);

        FencedS3Async fencedAsync = FencedS3Async.builder(s3Async).listener(writer("s3-async")).build();
        String asyncKey = unique("object");
        PutObjectRequest asyncPut = PutObjectRequest.builder().bucket(bucket).key(asyncKey).build();
        fencedAsync.putObject(token(asyncKey, 2), asyncPut, AsyncRequestBody.fromString("newer")).join();
        assertThatThrownBy(() -> fencedAsync.putObject(token(asyncKey, 1), asyncPut,
                AsyncRequestBody.fromString("zombie")).join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StaleTokenException.class);

        assertThat(List.of(stale("s3-store"), stale("s3"), stale("s3-async")))
                .as("refused writes counted per writer").containsOnly(1.0);
    }

    @Test
    void theRedisStoreCountsEachRefusedWrite() {
        RedisClient client = RedisClient.create(TestServers.redis().uri());
        OPENED.add(client::shutdown);
        StatefulRedisConnection<String, String> connection = client.connect();
        refusesTheOlderToken(RedisFencedStore.builder(connection).keyPrefix(unique("metrics") + ":").listener(writer("redis-store")).build());
        assertThat(stale("redis-store")).isEqualTo(1.0);
    }

    /** A newer token writes, an older one is refused: one stale write. */
    private static void refusesTheOlderToken(FencedStore store) {
        String key = unique("key");
        store.write(token(key, 2), key, "newer");
        assertThatThrownBy(() -> store.write(token(key, 1), key, "zombie")).isInstanceOf(StaleTokenException.class);
    }

    private static StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));
    }

    // ---- providers ----

    /** A client of the shared dynalite with the lock table created (closed with the test JVM). */
    private static DynamoDbClient dynamoDbLocks() {
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(URI.create(TestServers.dynamoDb().endpoint()))
                .region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"))).build();
        DynamoDbLockProvider.createTable(client, "metrics-locks");
        return client;
    }

    @Test
    void everyProviderCountsALeaseFoundLostAfterATakeover() {
        List<RedisTestServer> nodes = TestServers.redisNodes(3);
        List<String> nodeUris = nodes.stream().map(RedisTestServer::uri).toList();
        DataSource postgres = TestServers.postgres().freshDatabase();
        FencingMigrations.migrate(postgres);
        Map<String, Function<FencingListener, LockProvider>> providers = Map.of(
                "redis", listener -> RedisLockProvider.builder(TestServers.redis().uri()).listener(listener).build(),
                "redlock", listener -> RedlockProvider.builder(nodeUris).listener(listener).build(),
                "postgres", listener -> PostgresAdvisoryLockProvider.builder(postgres).listener(listener).build(),
                "etcd", listener -> EtcdLockProvider.builder(TestServers.etcd().endpoint()).listener(listener).build(),
                "zookeeper", listener -> ZooKeeperLockProvider.builder(TestServers.zooKeeper().connectString())
                        .listener(listener).build(),
                "dynamodb", listener -> DynamoDbLockProvider.builder(dynamoDbLocks()).table("metrics-locks")
                        .listener(listener).build());

        providers.forEach((name, build) -> {
            LockProvider holder = build.apply(MicrometerFencingListener.builder(REGISTRY).provider(name).build());
            LockProvider taker = build.apply(FencingListener.NONE);
            OPENED.add(holder);
            OPENED.add(taker);
            String resource = unique("lost");
            Lease lapsed = holder.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofMillis(600))).orElseThrow();
            Lease takenOver = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> taker.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))),
                            Optional::isPresent)
                    .orElseThrow();
            assertThatThrownBy(lapsed::release).as(name).isInstanceOf(LeaseLostException.class);
            takenOver.release();

            double lost = REGISTRY.get("fencing.lease.lost").tag("provider", name).counters().stream()
                    .mapToDouble(counter -> counter.count()).sum();
            assertThat(lost).as("leases of %s found lost", name).isEqualTo(1.0);
        });
    }
}
