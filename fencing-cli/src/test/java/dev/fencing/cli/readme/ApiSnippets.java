package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.migrations.Vendor;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.redis.RedisFencedStore;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.s3.FencedObject;
import dev.fencing.s3.FencedS3;
import dev.fencing.s3.S3Layout;
import dev.fencing.s3.S3ServerCheck;
import dev.fencing.testkit.history.History;
import dev.fencing.testkit.history.HistoryChecker;
import dev.fencing.testkit.history.HistoryRun;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The README's snippets for the core API, Redis, Postgres, etcd, ZooKeeper, S3, Flyway and the history checker,
 * verbatim: compiled by the build (never run), and found in the README by {@link DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class ApiSnippets {

    private ApiSnippets() {}

    static void apiInOneScreen(LockProvider locks, FencedStore accounts) throws InterruptedException {
        // locks: any LockProvider — Redis, Postgres advisory, Redlock, or InMemoryLockProvider
        // accounts: any FencedStore — JDBC, DynamoDB, S3, Redis, or InMemoryFencedStore
        try (Lease lease = locks.acquire("account-42", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
            // read-modify-write that loses nothing, even if a zombie writes in between
            accounts.update(lease.token(), "account-42",
                    balance -> Integer.toString(Integer.parseInt(balance.orElse("0")) + 50));
        } catch (StaleTokenException e) {
            // a newer holder has written: this holder's lease is over. Stop; do not retry with this token.
        }
    }

    static void redisQuickStart() throws InterruptedException {
        RedisClient client = RedisClient.create("redis://localhost:6379");
        try (RedisLockProvider locks = RedisLockProvider.create("redis://localhost:6379");
                StatefulRedisConnection<String, String> connection = client.connect()) {
            FencedStore invoices = RedisFencedStore.create(connection, "app:");   // or any fenced store
            try (Lease lease = locks.acquire("invoice-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }                                          // release: owner-checked script, wakes waiters
        } finally {
            client.shutdown();
        }
    }

    static void postgresQuickStart(DataSource dataSource) throws InterruptedException {
        FencingMigrations.migrate(dataSource);                       // creates fencing_token_counter
        FencedStore invoices = JdbcFencedStore.create(dataSource);   // or any fenced store
        try (PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(dataSource)) {
            try (Lease lease = locks.acquire("invoice-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }
        }
    }

    static void etcdQuickStart(DataSource dataSource) throws InterruptedException {
        FencedStore invoices = JdbcFencedStore.create(dataSource);   // or any fenced store
        try (EtcdLockProvider locks = EtcdLockProvider.create("http://etcd-1:2379", "http://etcd-2:2379", "http://etcd-3:2379")) {
            try (Lease lease = locks.acquire("invoice-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }                                          // release: owner-checked delete, then the lease is revoked
        }
    }

    static void zooKeeperQuickStart(DataSource dataSource) throws InterruptedException {
        FencedStore invoices = JdbcFencedStore.create(dataSource);   // or any fenced store
        try (ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder("zk1:2181,zk2:2181,zk3:2181")
                .sessionTimeout(Duration.ofSeconds(10)).build()) {
            LeaseOptions options = LeaseOptions.builder().ttl(Duration.ofSeconds(6)).autoRenew(true).build(); // see "under a partition"
            try (Lease lease = locks.acquire("invoice-7", options)) {     // token = the holder znode's czxid
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }
        }
    }

    static void s3QuickStart(S3Client s3, LockProvider locks, Path csv) throws InterruptedException {
        FencedS3 fenced = FencedS3.create(s3);     // S3Layout.POINTER; FencedS3Async.create(asyncS3) mirrors it
        try (Lease lease = locks.acquire("reports/2026-11.csv", LeaseOptions.ofTtl(Duration.ofSeconds(30)))) {
            fenced.putObject(lease.token(),
                    PutObjectRequest.builder().bucket("reports").key("2026-11.csv").contentType("text/csv").build(),
                    RequestBody.fromFile(csv));
        }
        Optional<FencedObject> report = fenced.getObject("reports", "2026-11.csv");   // content + token
    }

    static void s3InPlace(S3Client s3) {
        FencedS3 readable = FencedS3.builder(s3).layout(S3Layout.IN_PLACE).build();  // only if bodies are unique per write
    }

    static void s3ServerCheck(S3Client s3) {
        S3ServerCheck.run(s3, "reports").requirePassed();   // IllegalStateException naming each failed promise
    }

    static void migrations(DataSource dataSource) {
        FencingMigrations.migrate(dataSource);
    }

    static void flyway(DataSource dataSource) {
        Flyway.configure().dataSource(dataSource)
              .locations("classpath:db/migration", Vendor.POSTGRESQL.location())   // or Vendor.MYSQL
              .load().migrate();
    }

    static void historyCheck(DataSource a, DataSource b, DataSource c) {
        History history = HistoryRun.builder().keyPrefix("orders-check").writers(8).operationsPerWriter(5_000)
                .timeLimit(Duration.ofMinutes(2)).build()
                .run(List.of(MyStore.connect(a), MyStore.connect(b), MyStore.connect(c)));
        HistoryChecker.check(history).assertPassed();   // or history.writeTo(path) for `fencing check-history`
    }
}
