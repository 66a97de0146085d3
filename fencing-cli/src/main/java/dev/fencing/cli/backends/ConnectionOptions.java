package dev.fencing.cli.backends;

import dev.fencing.cli.CliException;
import dev.fencing.cli.ExitCode;
import dev.fencing.cli.commands.DurationConverter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * Where the servers are. Every option falls back to the {@code FENCING_*} environment variable the
 * testkit reads; without either, the CLI starts an embedded server itself (except {@code worker},
 * which wants {@code --embedded} for that). Every address is checked for its form when read
 * ({@link Endpoints}): a malformed one is bad usage naming the option or variable it came from.
 */
public final class ConnectionOptions {

    /** The bound on connecting to a server and on each call to it, unless {@code --timeout} or FENCING_TIMEOUT. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final Duration MIN_TIMEOUT = Duration.ofMillis(100);
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long connecting to a server, and each call to it, may take before the CLI reports it"
                    + " unreachable: 100ms to 10m (default 5s; longer on a busy machine, where a client's first call"
                    + " also loads its classes). Env: FENCING_TIMEOUT.")
    Duration timeout;

    /** Set by a torture run for its client processes: the rate of their lock provider's clock is read from it. */
    @Option(names = "--clock-file", hidden = true)
    java.nio.file.Path clockFile;

    private dev.fencing.core.@org.jspecify.annotations.Nullable MonotonicClock clock;

    @Option(names = "--redis-uri", paramLabel = "URI",
            description = "Redis for the redis and redlock locks, and for the redis store unless --redis-store-uri"
                    + " (redis://[:PASSWORD@]HOST[:PORT], rediss:// for TLS); repeat for the Redlock nodes."
                    + " Env: FENCING_REDIS_URI (comma-separated).")
    List<String> redisUris = new ArrayList<>();

    @Option(names = "--redis-store-uri", paramLabel = "URI",
            description = "Redis for the redis store, if not the lock's (redis://HOST[:PORT]). Env: FENCING_REDIS_STORE_URI.")
    String redisStoreUri;

    @Option(names = "--pg-url", paramLabel = "JDBC_URL",
            description = "JDBC URL (credentials as parameters) of the database that serves both the postgres lock"
                    + " (advisory locks, token counter) and the jdbc store:"
                    + " jdbc:postgresql://HOST[:PORT]/DATABASE?user=U&password=P, or for the jdbc store alone"
                    + " jdbc:mariadb://HOST[:PORT]/DATABASE?user=U&password=P. Env: FENCING_PG_URL.")
    String pgUrl;

    @Option(names = "--dynamodb-endpoint", paramLabel = "URL",
            description = "DynamoDB endpoint for the dynamodb lock and store, http(s)://HOST[:PORT] (credentials from the AWS"
                    + " default chain, else dummy keys for emulators). Env: FENCING_DYNAMODB_ENDPOINT.")
    String dynamoDbEndpoint;

    @Option(names = "--s3-endpoint", paramLabel = "URL",
            description = "S3 endpoint for the s3 store, http(s)://HOST[:PORT], which must arbitrate conditional puts"
                    + " atomically (credentials from the AWS default chain, else dummy keys for emulators)."
                    + " Env: FENCING_S3_ENDPOINT.")
    String s3Endpoint;

    @Option(names = "--azure-blob-endpoint", paramLabel = "URL",
            description = "Azure Blob Storage endpoint for the azure-blob store, http(s)://HOST[:PORT][/ACCOUNT]"
                    + " (account and key from AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, else Azurite's development"
                    + " account). Env: FENCING_AZURE_BLOB_ENDPOINT.")
    String azureBlobEndpoint;

    @Option(names = "--gcs-endpoint", paramLabel = "URL",
            description = "Google Cloud Storage JSON API for the gcs store, http(s)://HOST[:PORT]: an emulator (no"
                    + " credentials), or https://storage.googleapis.com (Google's default credentials, also wherever"
                    + " GOOGLE_APPLICATION_CREDENTIALS is set; project from GOOGLE_CLOUD_PROJECT)."
                    + " Env: FENCING_GCS_ENDPOINT.")
    String gcsEndpoint;

    @Option(names = "--etcd-endpoints", paramLabel = "URLS",
            description = "etcd for the etcd lock: http://HOST:PORT (https:// for TLS), comma-separated for the"
                    + " members of a cluster. Env: FENCING_ETCD_ENDPOINTS.")
    String etcdEndpoints;

    @Option(names = "--zookeeper-connect", paramLabel = "HOSTS",
            description = "ZooKeeper for the zookeeper lock: HOST:PORT, comma-separated for an ensemble."
                    + " Env: FENCING_ZOOKEEPER_CONNECT.")
    String zooKeeperConnect;

    @Option(names = "--tls-ca", paramLabel = "PEM",
            description = "Certificate authority (PEM) to trust for every server reached over TLS (rediss://, https://"
                    + " endpoints, a --pg-url with sslmode= and no sslrootcert=), instead of the JVM's trust store."
                    + " Env: FENCING_TLS_CA.")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "PEM",
            description = "Client certificate (PEM) for servers that ask for one (Redis, DynamoDB and S3 endpoints);"
                    + " with --tls-key. For PostgreSQL put sslcert= and sslkey= in --pg-url. Env: FENCING_TLS_CERT.")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "PEM",
            description = "The client certificate's private key (unencrypted PKCS#8 PEM). Env: FENCING_TLS_KEY.")
    Path tlsKey;

    @Option(names = "--etcd-user", paramLabel = "USER",
            description = "etcd user for the etcd lock (etcd's RBAC); its password from the environment variable"
                    + " FENCING_ETCD_PASSWORD, never the command line. Env: FENCING_ETCD_USER.")
    String etcdUser;

    @Option(names = "--zookeeper-tls",
            description = "Reach ZooKeeper's secure client port over TLS (Netty), trusting --tls-ca and presenting"
                    + " --tls-cert/--tls-key if given.")
    boolean zooKeeperTls;

    @Option(names = "--zookeeper-user", paramLabel = "USER",
            description = "Digest user for the zookeeper lock, its password from FENCING_ZOOKEEPER_PASSWORD; the"
                    + " lock's znodes are then created with an ACL only this account passes."
                    + " Env: FENCING_ZOOKEEPER_USER.")
    String zooKeeperUser;

    private TlsFiles tls;

    /** The etcd user and password, if an etcd user is named. */
    Optional<String[]> etcdCredentials() {
        return credentials("--etcd-user", etcdUser, "FENCING_ETCD_USER", "FENCING_ETCD_PASSWORD");
    }

    /** The ZooKeeper digest user and password, if a user is named. */
    Optional<String[]> zooKeeperCredentials() {
        return credentials("--zookeeper-user", zooKeeperUser, "FENCING_ZOOKEEPER_USER", "FENCING_ZOOKEEPER_PASSWORD");
    }

    /** Whether ZooKeeper is reached over TLS. */
    boolean zooKeeperTls() {
        return zooKeeperTls;
    }

    private static Optional<String[]> credentials(String option, String given, String userVariable,
            String passwordVariable) {
        Optional<String> user = Optional.ofNullable(given).or(() -> env(userVariable));
        if (user.isEmpty()) {
            return Optional.empty();
        }
        String password = env(passwordVariable).orElseThrow(() -> new dev.fencing.cli.CliException(
                dev.fencing.cli.ExitCode.USAGE, option + " " + user.get() + " needs its password in the environment"
                        + " variable " + passwordVariable));
        return Optional.of(new String[] {user.get(), password});
    }

    /** The TLS files, read and checked on first use. */
    public synchronized TlsFiles tls() {
        if (tls == null) {
            tls = TlsFiles.read(tlsCa != null ? tlsCa : env("FENCING_TLS_CA").map(Path::of).orElse(null),
                    tlsCert != null ? tlsCert : env("FENCING_TLS_CERT").map(Path::of).orElse(null),
                    tlsKey != null ? tlsKey : env("FENCING_TLS_KEY").map(Path::of).orElse(null));
        }
        return tls;
    }

    /**
     * The bound on connecting to a server and on each call to it: {@code --timeout}, else FENCING_TIMEOUT,
     * else {@link #DEFAULT_TIMEOUT}.
     *
     * @throws CliException (usage) naming the option or variable if the value is not a duration from 100 ms
     *     to 10 min
     */
    public Duration timeout() {
        if (timeout != null) {
            return DurationConverter.requireBetween("--timeout", timeout, MIN_TIMEOUT, MAX_TIMEOUT);
        }
        Optional<String> fromEnv = env("FENCING_TIMEOUT");
        if (fromEnv.isEmpty()) {
            return DEFAULT_TIMEOUT;
        }
        try {
            return DurationConverter.requireBetween("FENCING_TIMEOUT", new DurationConverter().convert(fromEnv.get()),
                    MIN_TIMEOUT, MAX_TIMEOUT);
        } catch (TypeConversionException e) {
            throw new CliException(ExitCode.USAGE, "FENCING_TIMEOUT: " + e.getMessage());
        }
    }

    /** The lock providers' clock: the system's, or one whose rate {@code --clock-file} sets (hidden, for client processes). */
    public synchronized dev.fencing.core.MonotonicClock clock() {
        if (clock == null) {
            clock = clockFile == null ? dev.fencing.core.MonotonicClock.system() : RateFileClock.following(clockFile);
        }
        return clock;
    }

    /** Checks the form of every address given as an option, whether this run uses it or not. */
    public void validate() {
        timeout();
        tls();
        etcdCredentials();
        zooKeeperCredentials();
        redisUris.forEach(uri -> Endpoints.redisUri("--redis-uri", uri));
        if (redisStoreUri != null) {
            Endpoints.redisUri("--redis-store-uri", redisStoreUri);
        }
        if (pgUrl != null) {
            Endpoints.jdbcUrl("--pg-url", pgUrl);
        }
        if (dynamoDbEndpoint != null) {
            Endpoints.httpEndpoint("--dynamodb-endpoint", dynamoDbEndpoint);
        }
        if (s3Endpoint != null) {
            Endpoints.httpEndpoint("--s3-endpoint", s3Endpoint);
        }
        if (azureBlobEndpoint != null) {
            Endpoints.httpEndpoint("--azure-blob-endpoint", azureBlobEndpoint);
        }
        if (gcsEndpoint != null) {
            Endpoints.httpEndpoint("--gcs-endpoint", gcsEndpoint);
        }
        if (etcdEndpoints != null) {
            Endpoints.etcdEndpoints("--etcd-endpoints", etcdEndpoints);
        }
        if (zooKeeperConnect != null) {
            Endpoints.zooKeeperConnect("--zookeeper-connect", zooKeeperConnect);
        }
    }

    /** The etcd cluster's client endpoints; empty means start etcd. */
    public List<String> etcdEndpoints() {
        return etcdEndpoints != null ? Endpoints.etcdEndpoints("--etcd-endpoints", etcdEndpoints)
                : env("FENCING_ETCD_ENDPOINTS").map(v -> Endpoints.etcdEndpoints("FENCING_ETCD_ENDPOINTS", v))
                        .orElse(List.of());
    }

    /** The ZooKeeper connect string; empty means start ZooKeeper. */
    public Optional<String> zooKeeperConnect() {
        return zooKeeperConnect != null ? Optional.of(Endpoints.zooKeeperConnect("--zookeeper-connect", zooKeeperConnect))
                : env("FENCING_ZOOKEEPER_CONNECT").map(v -> Endpoints.zooKeeperConnect("FENCING_ZOOKEEPER_CONNECT", v));
    }

    /** The database for the postgres lock and the jdbc store; empty means start one. */
    Optional<String> jdbcUrl() {
        return pgUrl != null ? Optional.of(Endpoints.jdbcUrl("--pg-url", pgUrl))
                : env("FENCING_PG_URL").map(v -> Endpoints.jdbcUrl("FENCING_PG_URL", v));
    }

    /** The DynamoDB endpoint; empty means start dynalite. */
    public Optional<String> dynamoDbEndpoint() {
        return dynamoDbEndpoint != null ? Optional.of(Endpoints.httpEndpoint("--dynamodb-endpoint", dynamoDbEndpoint))
                : env("FENCING_DYNAMODB_ENDPOINT").map(v -> Endpoints.httpEndpoint("FENCING_DYNAMODB_ENDPOINT", v));
    }

    /** The S3 endpoint; empty means start S3Mock. */
    public Optional<String> s3Endpoint() {
        return s3Endpoint != null ? Optional.of(Endpoints.httpEndpoint("--s3-endpoint", s3Endpoint))
                : env("FENCING_S3_ENDPOINT").map(v -> Endpoints.httpEndpoint("FENCING_S3_ENDPOINT", v));
    }

    /** The Azure Blob Storage endpoint; empty means start Azurite. */
    public Optional<String> azureBlobEndpoint() {
        return azureBlobEndpoint != null
                ? Optional.of(Endpoints.httpEndpoint("--azure-blob-endpoint", azureBlobEndpoint))
                : env("FENCING_AZURE_BLOB_ENDPOINT").map(v -> Endpoints.httpEndpoint("FENCING_AZURE_BLOB_ENDPOINT", v));
    }

    /** The GCS JSON API endpoint; empty means start the storage-testbench. */
    public Optional<String> gcsEndpoint() {
        return gcsEndpoint != null ? Optional.of(Endpoints.httpEndpoint("--gcs-endpoint", gcsEndpoint))
                : env("FENCING_GCS_ENDPOINT").map(v -> Endpoints.httpEndpoint("FENCING_GCS_ENDPOINT", v));
    }

    /** The lock's Redis servers; empty means start them. */
    List<String> redisLockUris() {
        if (!redisUris.isEmpty()) {
            return redisUris.stream().map(uri -> Endpoints.redisUri("--redis-uri", uri)).toList();
        }
        return env("FENCING_REDIS_URI").map(v -> Arrays.stream(v.split(",")).map(String::trim)
                .map(uri -> Endpoints.redisUri("FENCING_REDIS_URI", uri)).toList()).orElse(List.of());
    }

    /** The store's Redis server; empty means the lock's, or start one. */
    Optional<String> redisStoreUri() {
        return redisStoreUri != null ? Optional.of(Endpoints.redisUri("--redis-store-uri", redisStoreUri))
                : env("FENCING_REDIS_STORE_URI").map(v -> Endpoints.redisUri("FENCING_REDIS_STORE_URI", v));
    }

    /** The store's Redis server, else the lock's first; empty means start one. */
    Optional<String> redisStoreOrLockUri() {
        return redisStoreUri().or(() -> redisLockUris().stream().findFirst());
    }

    /** What points {@code lock} at a server, if nothing does (so it would run on an embedded one). */
    public Optional<String> unspecified(LockKind lock) {
        return switch (lock) {
            case REDIS -> redisLockUris().isEmpty() ? Optional.of("--redis-uri (or FENCING_REDIS_URI)") : Optional.empty();
            case REDLOCK -> redisLockUris().isEmpty()
                    ? Optional.of("--redis-uri, once per Redlock node (or FENCING_REDIS_URI)") : Optional.empty();
            case POSTGRES -> jdbcUrl().isEmpty() ? Optional.of("--pg-url (or FENCING_PG_URL)") : Optional.empty();
            case ETCD -> etcdEndpoints().isEmpty() ? Optional.of("--etcd-endpoints (or FENCING_ETCD_ENDPOINTS)")
                    : Optional.empty();
            case ZOOKEEPER -> zooKeeperConnect().isEmpty()
                    ? Optional.of("--zookeeper-connect (or FENCING_ZOOKEEPER_CONNECT)") : Optional.empty();
            case DYNAMODB -> dynamoDbEndpoint().isEmpty()
                    ? Optional.of("--dynamodb-endpoint (or FENCING_DYNAMODB_ENDPOINT)") : Optional.empty();
        };
    }

    /** What points {@code store} at a server, if nothing does (so it would run on an embedded one). */
    public Optional<String> unspecified(StoreKind store) {
        boolean given = switch (store) {
            case REDIS -> redisStoreOrLockUri().isPresent();
            case JDBC -> jdbcUrl().isPresent();
            case DYNAMODB -> dynamoDbEndpoint().isPresent();
            case S3 -> s3Endpoint().isPresent();
            case AZURE_BLOB -> azureBlobEndpoint().isPresent();
            case GCS -> gcsEndpoint().isPresent();
        };
        if (given) {
            return Optional.empty();
        }
        return Optional.of(switch (store) {
            case REDIS -> "--redis-store-uri or --redis-uri (or FENCING_REDIS_STORE_URI / FENCING_REDIS_URI)";
            case JDBC -> "--pg-url (or FENCING_PG_URL)";
            case DYNAMODB -> "--dynamodb-endpoint (or FENCING_DYNAMODB_ENDPOINT)";
            case S3 -> "--s3-endpoint (or FENCING_S3_ENDPOINT)";
            case AZURE_BLOB -> "--azure-blob-endpoint (or FENCING_AZURE_BLOB_ENDPOINT)";
            case GCS -> "--gcs-endpoint (or FENCING_GCS_ENDPOINT)";
        });
    }

    private static Optional<String> env(String name) {
        return Optional.ofNullable(System.getenv(name)).filter(v -> !v.isBlank());
    }
}
