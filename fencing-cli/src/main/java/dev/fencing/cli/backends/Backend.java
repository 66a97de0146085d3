package dev.fencing.cli.backends;

import com.azure.core.http.jdk.httpclient.JdkHttpClientBuilder;
import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.azure.blob.AzureBlobFencedStore;
import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.core.FencedStore;
import dev.fencing.core.LockProvider;
import dev.fencing.core.Policy;
import dev.fencing.dynamodb.DynamoDbFencedStore;
import dev.fencing.dynamodb.lock.DynamoDbLockProvider;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.redis.RedisFencedStore;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.redis.RedlockProvider;
import dev.fencing.s3.S3FencedStore;
import dev.fencing.s3.S3ServerCheck;
import dev.fencing.testkit.servers.AzuriteTestServer;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.PostgresTestServer;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.S3TestServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The lock provider and store one command runs against, with the embedded servers it started
 * for them; closing it closes the clients and stops those servers.
 *
 * <p>With no connection options the CLI starts its own servers — for a Redis lock and a Redis
 * store two separate {@code redis-server} processes, so a fault injected into the lock's server
 * (a restart that loses every key) never touches the data the store keeps.
 *
 * <p>Opened {@linkplain #openReadOnly read-only} (for {@code inspect}) it writes nothing: no
 * migrations, no table or bucket created, SQL sessions set read-only; what is missing is reported
 * by {@link #lockNotSetUp()} and {@link #storeNotSetUp()} instead.
 */
public final class Backend implements AutoCloseable {

    static final String STORE_PREFIX = "fencing-cli:";
    static final String DYNAMODB_TABLE = "fencing-cli";
    static final String DYNAMODB_LOCK_TABLE = "fencing-cli-locks";
    static final String S3_BUCKET = "fencing-cli";
    static final String AZURE_CONTAINER = "fencing-cli";

    /**
     * How long connecting to a server the user named, and each call to it, may take by default: a dead
     * address fails in seconds, not minutes ({@code --timeout} sets another).
     */
    public static final Duration CONNECT_TIMEOUT = ConnectionOptions.DEFAULT_TIMEOUT;

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final List<Fault> faults = new ArrayList<>();
    private boolean embeddedStore;
    private Database database;
    /** The database of the jdbc store, when it is the store. */
    private Database jdbcStoreDatabase;
    private LockProvider locks;
    private String lockDescription;
    private String tokenNote;
    private StoreFactory stores;
    private PlainStore plainStore;
    private String storeDescription;
    private final boolean readOnly;
    private String lockNotSetUp;
    private String embeddedDynamoDb;
    private String storeNotSetUp;
    private S3Client s3;
    private final TlsFiles tls;
    private final Duration timeout;

    private Backend(boolean readOnly, TlsFiles tls, Duration timeout) {
        this.readOnly = readOnly;
        this.tls = tls;
        this.timeout = timeout;
    }

    /** An HTTP client for the AWS SDK with the TLS files (closed with this backend). */
    private software.amazon.awssdk.http.SdkHttpClient awsHttpClient() {
        software.amazon.awssdk.http.SdkHttpClient client = tls.awsHttpClient();
        resources.push(client::close);
        return client;
    }

    /**
     * Starts or connects to the servers for {@code lock} and {@code store}.
     *
     * @throws CliException with {@link ExitCode#USAGE} for options that do not fit the kinds, or
     *     {@link ExitCode#UNREACHABLE} when a server cannot be reached
     */
    public static Backend open(LockKind lock, StoreKind store, ConnectionOptions connections) {
        return open(lock, store, connections, false, 1);
    }

    /** As {@link #open}, with a lock and no store ({@code leader}). */
    public static Backend openLock(LockKind lock, ConnectionOptions connections) {
        return open(lock, null, connections, false, 1);
    }

    /**
     * As {@link #open}, for the torture test: an embedded etcd is a 3-member cluster when
     * {@code faultNames} asks for {@value ConsensusLocks#RESTART_ETCD_LEADER} (or {@code all}), so that
     * killing the leader hands the lock service to another member instead of stopping it.
     */
    public static Backend openForTorture(LockKind lock, StoreKind store, ConnectionOptions connections,
            List<String> faultNames) {
        boolean leaderFault = faultNames.contains("all") || faultNames.contains(ConsensusLocks.RESTART_ETCD_LEADER);
        return open(lock, store, connections, false, lock == LockKind.ETCD && leaderFault ? 3 : 1);
    }

    /**
     * As {@link #open} (with no lock if {@code lock} is null), but writes nothing anywhere: no migrations, no table or bucket created,
     * SQL sessions read-only. A missing table or bucket is reported by {@link #lockNotSetUp()} or
     * {@link #storeNotSetUp()}, and that side's {@link #locks()} or {@link #store} is then absent.
     */
    public static Backend openReadOnly(LockKind lock, StoreKind store, ConnectionOptions connections) {
        return open(lock, store, connections, true, 1);
    }

    private static Backend open(LockKind lock, StoreKind store, ConnectionOptions connections, boolean readOnly,
            int etcdMembers) {
        connections.validate();
        Backend backend = new Backend(readOnly, connections.tls(), connections.timeout());
        try {
            if (lock != null) {
                switch (lock) {
                    case REDIS -> backend.openRedisLock(connections);
                    case POSTGRES -> backend.openPostgresLock(connections);
                    case REDLOCK -> backend.openRedlock(connections);
                    case ETCD -> backend.adopt(ConsensusLocks.etcd(connections, etcdMembers, backend.resources::push));
                    case ZOOKEEPER -> backend.adopt(ConsensusLocks.zooKeeper(connections, backend.resources::push));
                    case DYNAMODB -> backend.openDynamoDbLock(connections);
                }
            }
            if (store != null) { // null: a lock alone
                switch (store) {
                    case REDIS -> backend.openRedisStore(connections);
                    case JDBC -> backend.openJdbcStore(connections);
                    case DYNAMODB -> backend.openDynamoDbStore(connections);
                    case S3 -> backend.openS3Store(connections);
                    case AZURE_BLOB -> backend.openAzureBlobStore(connections);
                }
            }
            return backend;
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
    }

    /** Takes an etcd or ZooKeeper lock that {@link ConsensusLocks} opened (its resources are already ours to close). */
    private void adopt(ConsensusLocks.Opened opened) {
        locks = opened.locks();
        lockDescription = opened.description();
        tokenNote = opened.tokenNote();
        faults.addAll(opened.faults());
    }

    /**
     * Says so when TLS files were given but a Redis URI is not {@code rediss://}: Lettuce then connects
     * in plaintext and the files are unused, which a user who gave {@code --tls-ca} must not miss.
     */
    private String plaintextNote(List<String> uris) {
        boolean plaintext = uris.stream().anyMatch(u -> !u.trim().toLowerCase(java.util.Locale.ROOT)
                .startsWith("rediss"));
        return tls.any() && plaintext ? " (in plaintext: --tls-ca, --tls-cert and --tls-key apply to rediss:// URIs"
                + " only)" : "";
    }

    private void openRedisLock(ConnectionOptions connections) {
        List<String> uris = connections.redisLockUris();
        String uri;
        tokenNote = "max(counter + 1, the server's TIME in microseconds) per grant: a counter that comes back old"
                + " or not at all is overtaken by the server's clock";
        if (uris.isEmpty()) {
            SnapshotRestore snapshots = SnapshotRestore.launch();
            resources.push(snapshots);
            RedisTestServer server = snapshots.server();
            uri = server.uri();
            lockDescription = "redis lock on an embedded redis-server at " + server.host() + ":" + server.port();
            faults.add(new Fault("restart-lock-server", "kill the lock's redis-server and start it empty (data loss)",
                    server::restartEmpty));
            faults.add(new Fault("restore-lock-snapshot", "kill the lock's redis-server and start it from the snapshot"
                    + " saved at the previous injection (old token counters)", snapshots::restoreOlderSnapshot));
        } else {
            uri = uris.get(0);
            lockDescription = "redis lock on " + Endpoints.redacted(uri) + plaintextNote(List.of(uri));
        }
        RedisClient client = redisClient(uri);
        // what the provider sets on a client of its own, plus a bounded connect
        client.setOptions(ClientOptions.builder().socketOptions(SocketOptions.builder().connectTimeout(timeout)
                        .build()).disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .sslOptions(tls.lettuce().orElseGet(SslOptions::create))
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(2))).build());
        try {
            locks = RedisLockProvider.builder(client).connectTimeout(timeout).build();
        } catch (RuntimeException e) {
            throw unreachable("Redis for the lock at " + Endpoints.redacted(uri), "--redis-uri or FENCING_REDIS_URI", e);
        }
        resources.push(locks);
    }

    private void openRedlock(ConnectionOptions connections) {
        List<String> uris = connections.redisLockUris();
        tokenNote = "per node max(counter + 1, the round's shared seed: this process's clock in microseconds while"
                + " within tokenClockTolerance of the node's TIME, else the node's own); the largest of the"
                + " majority, written back to a majority unless a majority already answered it";
        if (uris.isEmpty()) {
            List<RedisTestServer> servers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                servers.add(started(RedisTestServer.launch()));
            }
            uris = servers.stream().map(RedisTestServer::uri).toList();
            lockDescription = "redlock on 5 embedded redis-servers (ports "
                    + String.join(", ", servers.stream().map(server -> Integer.toString(server.port())).toList()) + ")";
            AtomicInteger next = new AtomicInteger();
            faults.add(new Fault("restart-redlock-node", "kill one Redlock node and start it empty (data loss), in turn",
                    () -> servers.get(next.getAndIncrement() % servers.size()).restartEmpty()));
        } else {
            lockDescription = "redlock on " + String.join(", ", uris.stream().map(Endpoints::redacted).toList())
                    + plaintextNote(uris);
        }
        try {
            RedlockProvider.Builder builder = RedlockProvider.builder(uris).connectTimeout(timeout);
            tls.lettuce().ifPresent(builder::sslOptions);
            locks = builder.build();
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCode.USAGE, "--redis-uri: " + e.getMessage());
        } catch (RuntimeException e) {
            throw unreachable("the Redlock nodes " + uris.stream().map(Endpoints::redacted).toList(),
                    "--redis-uri (repeat it for each node) or FENCING_REDIS_URI", e);
        }
        resources.push(locks);
    }

    private void openPostgresLock(ConnectionOptions connections) {
        Database database = database(connections);
        lockDescription = "postgres advisory lock on " + database.description();
        tokenNote = "the fencing_token_counter row +1 per grant, committed before the lease is handed out";
        if (!database.postgres()) {
            throw new CliException(ExitCode.USAGE, "--lock postgres needs a PostgreSQL database: --pg-url starts"
                    + " jdbc:postgresql:, got " + database.description());
        }
        if (readOnly && !tableExists(database, "fencing_token_counter")) {
            lockNotSetUp = "table fencing_token_counter (the postgres lock's token counter) is missing";
            return;
        }
        try {
            locks = PostgresAdvisoryLockProvider.builder(database.dataSource()).connectTimeout(timeout).build();
        } catch (RuntimeException e) {
            throw unreachable("PostgreSQL for the lock (" + database.description() + ")", "--pg-url or FENCING_PG_URL", e);
        }
        resources.push(locks);
        if (database.embedded()) {
            faults.add(new Fault("terminate-lock-backends", "terminate the PostgreSQL backends holding advisory locks",
                    () -> terminateAdvisoryHolders(database.dataSource())));
        }
    }

    private static void terminateAdvisoryHolders(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                    + " AND pid <> pg_backend_pid()");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot terminate the advisory lock holders: " + e.getMessage(), e);
        }
    }

    /**
     * The SQL database of this run: from --pg-url, or one embedded PostgreSQL shared by lock and
     * store; migrated unless read-only.
     */
    private Database database(ConnectionOptions connections) {
        if (database != null) {
            return database;
        }
        Optional<String> configured = connections.jdbcUrl();
        if (configured.isEmpty()) {
            PostgresTestServer server = PostgresTestServer.launch();
            resources.push(server::stop);
            database = new Database(pooled(server.dataSource(), true), "an embedded PostgreSQL at "
                    + UrlDataSource.redacted(server.jdbcUrl()), true, true);
        } else {
            String url = tls.jdbcUrl(configured.get());
            UrlDataSource target = new UrlDataSource(url, timeout);
            // one connection first, straight from the driver: its own reason, at once, rather than a pool's timeout
            try (Connection probe = target.getConnection()) {
                probe.isValid(1);
            } catch (SQLException e) {
                throw unreachable("the database at " + UrlDataSource.redacted(url), "--pg-url or FENCING_PG_URL", e);
            }
            database = new Database(pooled(target, target.postgres()), UrlDataSource.redacted(url), false,
                    target.postgres());
        }
        if (!readOnly) {
            try {
                FencingMigrations.migrate(database.dataSource());
            } catch (RuntimeException e) {
                throw unreachable("the database at " + database.description(), "--pg-url or FENCING_PG_URL", e);
            }
        }
        return database;
    }

    /**
     * A HikariCP pool: a lease keeps a connection, so allow one per worker and some to spare. A
     * borrow waits at most 10 s; read-only, every session is set read-only on the server.
     */
    private DataSource pooled(DataSource target, boolean postgres) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(target);
        config.setMaximumPoolSize(80);
        config.setMinimumIdle(0);
        config.setPoolName("fencing-cli");
        config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
        config.setInitializationFailTimeout(-1); // connection failures surface at first use, with our message
        if (readOnly) {
            config.setReadOnly(true);
            config.setConnectionInitSql(postgres ? "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"
                    : "SET SESSION TRANSACTION READ ONLY");
        }
        HikariDataSource pool = new HikariDataSource(config);
        resources.push(pool::close);
        return pool;
    }

    private record Database(DataSource dataSource, String description, boolean embedded, boolean postgres) {}

    private boolean tableExists(Database database, String table) {
        try {
            return SqlTables.exists(database.dataSource(), table);
        } catch (SQLException e) {
            throw unreachable("the database at " + database.description(), "--pg-url or FENCING_PG_URL", e);
        }
    }

    /**
     * A Lettuce client for {@code uri} whose connect and handshake give up after
     * the CLI's timeout (the URI's timeout bounds the handshake: 60 s by default).
     */
    private RedisClient redisClient(String uri) {
        RedisURI parsed = RedisURI.create(uri);
        parsed.setTimeout(timeout);
        RedisClient client = RedisClient.create(parsed);
        client.setOptions(ClientOptions.builder().socketOptions(SocketOptions.builder().connectTimeout(timeout)
                .build()).sslOptions(tls.lettuce().orElseGet(SslOptions::create)).build());
        resources.push(client::shutdown);
        return client;
    }

    private void openRedisStore(ConnectionOptions connections) {
        Optional<String> configured = connections.redisStoreOrLockUri();
        String uri;
        if (configured.isEmpty()) {
            RedisTestServer server = started(RedisTestServer.launch());
            uri = server.uri();
            storeDescription = "redis store on its own embedded redis-server at " + server.host() + ":" + server.port();
            embeddedStore = true;
        } else {
            uri = configured.get();
            storeDescription = "redis store on " + Endpoints.redacted(uri) + plaintextNote(List.of(uri));
        }
        RedisClient client = redisClient(uri);
        StatefulRedisConnection<String, String> connection;
        try {
            connection = client.connect();
        } catch (RedisException e) {
            throw unreachable("Redis for the store at " + Endpoints.redacted(uri),
                    "--redis-store-uri or FENCING_REDIS_STORE_URI", e);
        }
        resources.push(connection);
        stores = policy -> RedisFencedStore.builder(connection).prefix(STORE_PREFIX).policy(policy).build();
        var redis = connection.sync();
        plainStore = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                return Optional.ofNullable(redis.get(STORE_PREFIX + "plain:" + key));
            }

            @Override
            public void write(String key, String value) {
                redis.set(STORE_PREFIX + "plain:" + key, value);
            }
        };
    }

    private void openJdbcStore(ConnectionOptions connections) {
        Database db = database(connections);
        jdbcStoreDatabase = db;
        storeDescription = "jdbc store on " + db.description();
        embeddedStore = db.embedded();
        if (readOnly) {
            if (!tableExists(db, JdbcFencedStore.DEFAULT_TABLE)) {
                storeNotSetUp = "table " + JdbcFencedStore.DEFAULT_TABLE + " (the jdbc store's) is missing";
                return;
            }
            stores = policy -> JdbcFencedStore.builder(db.dataSource()).policy(policy).build();
            return;
        }
        try {
            plainStore = SqlPlainStore.create(db.dataSource());
        } catch (RuntimeException e) {
            throw unreachable("the database for the jdbc store (" + db.description() + ")", "--pg-url or FENCING_PG_URL", e);
        }
        stores = policy -> JdbcFencedStore.builder(db.dataSource()).policy(policy).build();
    }

    private void openDynamoDbStore(ConnectionOptions connections) {
        String endpoint = dynamoDbEndpoint(connections);
        embeddedStore = connections.dynamoDbEndpoint().isEmpty();
        storeDescription = "dynamodb store on " + (embeddedStore ? "an embedded dynalite at " : "") + endpoint;
        DynamoDbClient client = dynamoDbClient(endpoint);
        resources.push(client::close);
        try {
            if (!readOnly) {
                DynamoDbFencedStore.createTable(client, Backend.DYNAMODB_TABLE, "pk");
            } else if (!dynamoDbTableExists(client)) {
                storeNotSetUp = "DynamoDB table " + DYNAMODB_TABLE + " is missing";
                return;
            }
        } catch (RuntimeException e) {
            throw unreachable("DynamoDB at " + endpoint, "--dynamodb-endpoint or FENCING_DYNAMODB_ENDPOINT", e);
        }
        stores = policy -> DynamoDbFencedStore.builder(client, DYNAMODB_TABLE).policy(policy).build();
        plainStore = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                var item = client.getItem(r -> r.tableName(DYNAMODB_TABLE).consistentRead(true)
                        .key(Map.of("pk", AttributeValue.fromS("plain:" + key)))).item();
                return item == null || !item.containsKey("v") ? Optional.empty() : Optional.of(item.get("v").s());
            }

            @Override
            public void write(String key, String value) {
                client.putItem(r -> r.tableName(DYNAMODB_TABLE).item(Map.of("pk", AttributeValue.fromS("plain:" + key),
                        "v", AttributeValue.fromS(value))));
            }
        };
    }

    /** A client of {@code endpoint}: credentials from the AWS default chain, else dummy keys that emulators accept. */
    private DynamoDbClient dynamoDbClient(String endpoint) {
        return DynamoDbClient.builder()
                .httpClient(awsHttpClient())
                .endpointOverride(URI.create(endpoint))
                .region(Region.of(System.getenv().getOrDefault("AWS_REGION", DynamoDbTestServer.REGION)))
                // the AWS default chain (env, profile, instance role), else dummy keys that emulators accept
                .credentialsProvider(AwsCredentialsProviderChain.of(DefaultCredentialsProvider.builder().build(),
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("fencing", "fencing"))))
                // a silent endpoint fails each call within the CLI's bound, not the SDK's minutes; three
                // attempts, not DynamoDB's nine, so a refused port is reported as refused within it
                .overrideConfiguration(c -> c.apiCallTimeout(timeout).retryStrategy(RetryMode.STANDARD))
                .build();
    }

    /**
     * The DynamoDB endpoint given, or one embedded dynalite started on first use and shared by the
     * dynamodb lock and store of this backend (their tables differ).
     */
    private String dynamoDbEndpoint(ConnectionOptions connections) {
        Optional<String> configured = connections.dynamoDbEndpoint();
        if (configured.isPresent()) {
            return configured.get();
        }
        if (embeddedDynamoDb == null) {
            DynamoDbTestServer server = DynamoDbTestServer.launch();
            resources.push(server::stop);
            embeddedDynamoDb = server.endpoint();
        }
        return embeddedDynamoDb;
    }

    private void openDynamoDbLock(ConnectionOptions connections) {
        String endpoint = dynamoDbEndpoint(connections);
        lockDescription = "dynamodb lock on " + (connections.dynamoDbEndpoint().isEmpty() ? "an embedded dynalite at "
                : "") + endpoint;
        tokenNote = "max(previous token + 1, this process's clock in microseconds) per grant, written by the grant into"
                + " the lock's own item, which no release deletes";
        DynamoDbClient client = dynamoDbClient(endpoint);
        resources.push(client::close);
        try {
            if (!readOnly) {
                DynamoDbLockProvider.createTable(client, DYNAMODB_LOCK_TABLE);
            } else if (!dynamoDbTableExists(client, DYNAMODB_LOCK_TABLE)) {
                lockNotSetUp = "DynamoDB table " + DYNAMODB_LOCK_TABLE + " (the dynamodb lock's) is missing";
                return;
            }
        } catch (RuntimeException e) {
            throw unreachable("DynamoDB for the lock at " + endpoint, "--dynamodb-endpoint or FENCING_DYNAMODB_ENDPOINT", e);
        }
        DynamoDbLockProvider provider = DynamoDbLockProvider.builder(client).table(DYNAMODB_LOCK_TABLE)
                .requestTimeout(timeout).build();
        resources.push(provider);
        locks = provider;
    }

    private static boolean dynamoDbTableExists(DynamoDbClient client) {
        return dynamoDbTableExists(client, DYNAMODB_TABLE);
    }

    private static boolean dynamoDbTableExists(DynamoDbClient client, String table) {
        try {
            client.describeTable(r -> r.tableName(table));
            return true;
        } catch (ResourceNotFoundException e) {
            return false;
        }
    }

    private void openS3Store(ConnectionOptions connections) {
        Optional<String> configured = connections.s3Endpoint();
        String endpoint;
        if (configured.isEmpty()) {
            S3TestServer server = S3TestServer.launch();
            resources.push(server::stop);
            // S3Mock does not arbitrate racing conditional puts; the testkit's proxy in front of it does
            endpoint = server.atomicEndpoint();
            storeDescription = "s3 store on an embedded S3Mock behind the testkit's serializing proxy at " + endpoint;
            embeddedStore = true;
        } else {
            endpoint = configured.get();
            storeDescription = "s3 store on " + endpoint;
        }
        S3Client client = S3Client.builder()
                .httpClient(awsHttpClient())
                .endpointOverride(URI.create(endpoint))
                .forcePathStyle(true)
                .region(Region.of(System.getenv().getOrDefault("AWS_REGION", S3TestServer.REGION)))
                .credentialsProvider(AwsCredentialsProviderChain.of(DefaultCredentialsProvider.builder().build(),
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("fencing", "fencing"))))
                // a silent endpoint fails each call within the CLI's bound, not the SDK's minutes; three
                // attempts, not the SDK's usual four, so a refused port is reported as refused within it
                .overrideConfiguration(c -> c.apiCallTimeout(timeout).retryStrategy(RetryMode.STANDARD))
                .build();
        resources.push(client::close);
        try {
            if (!readOnly) {
                client.createBucket(r -> r.bucket(S3_BUCKET));
            } else if (!s3BucketExists(client)) {
                storeNotSetUp = "S3 bucket " + S3_BUCKET + " is missing";
                return;
            }
        } catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException exists) {
            // another worker made it first
        } catch (RuntimeException e) {
            throw unreachable("S3 at " + endpoint, "--s3-endpoint or FENCING_S3_ENDPOINT", e);
        }
        s3 = client;
        stores = policy -> S3FencedStore.builder(client, S3_BUCKET).prefix("fenced/").policy(policy).build();
        plainStore = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                try {
                    return Optional.of(client.getObjectAsBytes(r -> r.bucket(S3_BUCKET).key("plain/" + key)).asUtf8String());
                } catch (NoSuchKeyException e) {
                    return Optional.empty();
                }
            }

            @Override
            public void write(String key, String value) {
                client.putObject(r -> r.bucket(S3_BUCKET).key("plain/" + key), RequestBody.fromString(value));
            }
        };
    }

    private void openAzureBlobStore(ConnectionOptions connections) {
        Optional<String> configured = connections.azureBlobEndpoint();
        String endpoint;
        if (configured.isEmpty()) {
            AzuriteTestServer server = AzuriteTestServer.launch();
            resources.push(server::stop);
            endpoint = server.endpoint();
            storeDescription = "azure-blob store on an embedded Azurite at " + endpoint;
            embeddedStore = true;
        } else {
            endpoint = configured.get();
            storeDescription = "azure-blob store on " + endpoint;
        }
        BlobServiceClientBuilder builder = new BlobServiceClientBuilder();
        if (tls.any()) {
            builder.httpClient(new JdkHttpClientBuilder(java.net.http.HttpClient.newBuilder()
                    .sslContext(tls.sslContext())).build());
        }
        BlobContainerClient container = builder.endpoint(endpoint)
                .credential(azureCredential(endpoint))
                // three quick tries, so a refused port is reported as refused within the CLI's bound, not
                // as a timeout after the SDK's 4 s back-off
                .retryOptions(new RequestRetryOptions(RetryPolicyType.EXPONENTIAL, 3, timeout,
                        Duration.ofMillis(100), Duration.ofMillis(500), null))
                .buildClient().getBlobContainerClient(AZURE_CONTAINER);
        try {
            // the JDK's HTTP client reports a refused port as a bare ConnectException; the OS's own reason is clearer
            URI uri = URI.create(endpoint);
            int port = uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
            TcpProbe.anyAccepts(List.of(InetSocketAddress.createUnresolved(uri.getHost(), port)), timeout);
            if (!readOnly) {
                container.createIfNotExistsWithResponse(null, timeout, Context.NONE);
            } else if (!container.existsWithResponse(timeout, Context.NONE).getValue()) {
                storeNotSetUp = "Azure Blob Storage container " + AZURE_CONTAINER + " is missing";
                return;
            }
        } catch (IOException | RuntimeException e) {
            throw unreachable("Azure Blob Storage at " + endpoint,
                    "--azure-blob-endpoint or FENCING_AZURE_BLOB_ENDPOINT", e);
        }
        stores = policy -> AzureBlobFencedStore.builder(container).prefix("fenced/").policy(policy).build();
        plainStore = new PlainStore() {
            @Override
            public Optional<String> read(String key) {
                try {
                    return Optional.of(container.getBlobClient("plain/" + key).downloadContent().toString());
                } catch (BlobStorageException e) {
                    if (e.getStatusCode() == 404) {
                        return Optional.empty();
                    }
                    throw e;
                }
            }

            @Override
            public void write(String key, String value) {
                container.getBlobClient("plain/" + key).upload(BinaryData.fromString(value), true);
            }
        };
    }

    /**
     * The account and key for {@code endpoint}: {@code AZURE_STORAGE_ACCOUNT} and
     * {@code AZURE_STORAGE_KEY}, else the account in the endpoint's path (Azurite's form) or its
     * host's first label (Azure's), with Azurite's public development key.
     */
    private static StorageSharedKeyCredential azureCredential(String endpoint) {
        URI uri = URI.create(endpoint);
        String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("^/+", "");
        String fromUrl = !path.isEmpty() ? path.split("/")[0] : uri.getHost().split("\\.")[0];
        String account = Optional.ofNullable(System.getenv("AZURE_STORAGE_ACCOUNT")).filter(v -> !v.isBlank())
                .orElse(fromUrl);
        String key = Optional.ofNullable(System.getenv("AZURE_STORAGE_KEY")).filter(v -> !v.isBlank())
                .orElse(AzuriteTestServer.KEY);
        return new StorageSharedKeyCredential(account, key);
    }

    private static boolean s3BucketExists(S3Client client) {
        try {
            client.headBucket(r -> r.bucket(S3_BUCKET));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw e;
        }
    }

    private RedisTestServer started(RedisTestServer server) {
        resources.push(server::stop);
        return server;
    }

    @FunctionalInterface
    private interface StoreFactory {
        FencedStore create(Policy policy);
    }

    /** Exit 3: {@code what} could not be reached, the driver's reason, and the option that points elsewhere. */
    static CliException unreachable(String what, String howToPoint, Exception cause) {
        return new CliException(ExitCode.UNREACHABLE, what + " could not be reached: " + Reasons.of(cause)
                + ". Start it, or point the CLI at another with " + howToPoint + ".");
    }

    /** The lock provider; null if read-only and {@link #lockNotSetUp()}. */
    public LockProvider locks() {
        return locks;
    }

    /** Read-only: what the lock needs and this server lacks (a table), or null. */
    public String lockNotSetUp() {
        return lockNotSetUp;
    }

    /** Read-only: what the store needs and this server lacks (a table or bucket), or null. */
    /**
     * For an S3 store whose bucket exists, the start-up check of the server's conditional writes and
     * metadata ({@link S3ServerCheck}, which writes and deletes one scratch object); empty otherwise.
     */
    public Optional<S3ServerCheck> checkS3Server() {
        return s3 == null ? Optional.empty() : Optional.of(S3ServerCheck.run(s3, S3_BUCKET));
    }

    public String storeNotSetUp() {
        return storeNotSetUp;
    }

    /**
     * For the jdbc store: the marks {@code fencing_fence} holds under the name {@code resource}, by
     * kind — {@code lock} (the fence row of the lock so named: {@code JdbcFence}, {@code JdbiFence},
     * {@code TransactionalFence} and {@code RowGuard} raise it) and {@code row} (the row guard's
     * entry, for a name like {@code <schema>.<table>:<key>}). Empty for other stores or without the
     * table. Read-only.
     */
    public Map<String, Long> fenceMarks(String resource) {
        Database db = jdbcStoreDatabase;
        if (db == null || !tableExists(db, "fencing_fence")) {
            return Map.of();
        }
        Map<String, Long> marks = new java.util.TreeMap<>();
        try (Connection connection = db.dataSource().getConnection();
                java.sql.PreparedStatement statement = connection.prepareStatement(
                        "SELECT kind, token FROM fencing_fence WHERE resource = ?")) {
            statement.setString(1, resource);
            try (java.sql.ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    marks.put(rows.getString(1), rows.getLong(2));
                }
            }
        } catch (SQLException e) {
            throw unreachable("the database for the jdbc store (" + db.description() + ")", "--pg-url or FENCING_PG_URL", e);
        }
        return marks;
    }

    /** A fenced store under {@code policy}. */
    public FencedStore store(Policy policy) {
        return stores.create(policy);
    }

    /** The same storage, unfenced. */
    public PlainStore plainStore() {
        return plainStore;
    }

    /** Where the lock lives, in words. */
    public String lockDescription() {
        return lockDescription;
    }

    /** What the tokens of this run's lock are, in words. */
    public String tokenNote() {
        return tokenNote;
    }

    /** Where the store lives, in words. */
    public String storeDescription() {
        return storeDescription;
    }

    /** Whether the store lives on a server this backend started (and so holds nothing from before). */
    public boolean embeddedStore() {
        return embeddedStore;
    }

    /** The faults that can be injected: only into servers this backend started. */
    public List<Fault> faults() {
        return List.copyOf(faults);
    }

    @Override
    public void close() {
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception ignored) {
                // closing the rest matters more
            }
        }
    }
}
