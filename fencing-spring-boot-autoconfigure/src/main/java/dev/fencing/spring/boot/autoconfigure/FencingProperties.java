// Over 500 lines: Spring Boot binds fencing.* to one class; each nested class is a property group and stays.
package dev.fencing.spring.boot.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * The {@code fencing.*} settings of the auto-configuration. Every setting is optional; without
 * {@code fencing.lock.type} no lock provider is created. Values are checked when the beans that
 * use them are built: a bad value fails the application's start with an
 * {@link IllegalArgumentException} naming the property, the value and what is allowed.
 */
@ConfigurationProperties("fencing")
public class FencingProperties {

    private final Lock lock = new Lock();
    private final Flyway flyway = new Flyway();
    private final Jdbc jdbc = new Jdbc();
    private final Health health = new Health();
    private final Propagation propagation = new Propagation();
    private final Leadership leadership = new Leadership();

    /** The lock provider settings. */
    public Lock getLock() {
        return lock;
    }

    /** The settings of the toolkit's migrations in the application's Flyway run. */
    public Flyway getFlyway() {
        return flyway;
    }

    /** The settings of the JdbcFence and JdbiFence beans. */
    public Jdbc getJdbc() {
        return jdbc;
    }

    /** The settings of the {@code fencing} health indicator. */
    public Health getHealth() {
        return health;
    }

    /** The settings of the receiving side of token propagation. */
    public Propagation getPropagation() {
        return propagation;
    }

    /** The settings of the auto-configured leader election. */
    public Leadership getLeadership() {
        return leadership;
    }

    /** {@code fencing.lock.*}: which lock provider to create, and its settings. */
    public static class Lock {

        /**
         * The lock provider to create: redis, postgres, redlock, etcd or zookeeper. Unset: no
         * provider is created (define your own LockProvider bean, or set it).
         */
        private @Nullable String type;

        private final Redis redis = new Redis();
        private final Redlock redlock = new Redlock();
        private final Postgres postgres = new Postgres();
        private final Etcd etcd = new Etcd();
        private final ZooKeeper zookeeper = new ZooKeeper();

        public @Nullable String getType() {
            return type;
        }

        public void setType(@Nullable String type) {
            this.type = type == null ? null : type.strip();
        }

        public Redis getRedis() {
            return redis;
        }

        public Redlock getRedlock() {
            return redlock;
        }

        public Postgres getPostgres() {
            return postgres;
        }

        public Etcd getEtcd() {
            return etcd;
        }

        public ZooKeeper getZookeeper() {
            return zookeeper;
        }
    }

    /** {@code fencing.lock.redis.*}: a RedisLockProvider on the application's Redis. */
    public static class Redis {

        /**
         * A Redis URI (redis://, rediss:// or redis-sentinel://) for the locks instead of the
         * application's own Redis connection (spring.data.redis.*).
         */
        private @Nullable String uri;

        /** The prefix of every lock key and channel. */
        private String keyPrefix = "fencing:";

        /** How long one Redis command may take before it fails (10ms to 5m). A bare number is in seconds. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration requestTimeout = Duration.ofSeconds(5);

        /**
         * How long the start waits for Redis to accept the connection and answer its handshake
         * (100ms to 5m); a Redis that never answers fails the start within it. A bare number is in
         * seconds.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration connectTimeout = Duration.ofSeconds(10);

        public @Nullable String getUri() {
            return uri;
        }

        public void setUri(@Nullable String uri) {
            this.uri = uri == null ? null : uri.strip();
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix.strip();
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }
    }

    /** {@code fencing.lock.redlock.*}: a RedlockProvider over independent Redis masters. */
    public static class Redlock {

        /** The independent Redis masters (redis://host:port), an odd number from 3 to 15. */
        private List<String> uris = new ArrayList<>();

        /** The prefix of every lock key and channel. */
        private String keyPrefix = "fencing:";

        /**
         * How long one node's answer is awaited (1ms to 5s); keep it far below the lease TTL. A bare
         * number is in milliseconds.
         */
        @DurationUnit(ChronoUnit.MILLIS)
        private Duration requestTimeout = Duration.ofMillis(100);

        /**
         * How long the start waits for a majority of the masters to answer their connection
         * handshake (100ms to 5m). A bare number is in seconds.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration connectTimeout = Duration.ofSeconds(10);

        public List<String> getUris() {
            return uris;
        }

        public void setUris(List<String> uris) {
            this.uris = uris.stream().map(String::strip).collect(Collectors.toCollection(ArrayList::new));
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix.strip();
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }
    }

    /** {@code fencing.lock.postgres.*}: a PostgresAdvisoryLockProvider on the application's DataSource. */
    public static class Postgres {

        /** The token counter table, created by the toolkit's migrations. */
        private String table = "fencing_token_counter";

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table.strip();
        }
    }

    /** {@code fencing.lock.etcd.*}: an EtcdLockProvider. */
    public static class Etcd {

        /** The etcd members, http://host:port or https://host:port, one per member. */
        private List<String> endpoints = new ArrayList<>();

        /** The prefix of every lock key (segments of letters, digits and _.- separated by /). */
        private String keyPrefix = "fencing";

        /** How long one etcd request may take (10ms to 5m). A bare number is in seconds. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration requestTimeout = Duration.ofSeconds(5);

        /** The etcd user the provider authenticates as (etcd's RBAC); its role needs readwrite on the key prefix. */
        private @Nullable String username;

        /** The etcd user's password. */
        private @Nullable String password;

        /** The name of a Spring Boot SSL bundle (spring.ssl.bundle.*) for https:// endpoints: trust and client certificate. */
        private @Nullable String sslBundle;

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public @Nullable String getSslBundle() {
            return sslBundle;
        }

        public void setSslBundle(@Nullable String sslBundle) {
            this.sslBundle = sslBundle;
        }

        public List<String> getEndpoints() {
            return endpoints;
        }

        public void setEndpoints(List<String> endpoints) {
            this.endpoints = endpoints.stream().map(String::strip).collect(Collectors.toCollection(ArrayList::new));
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix.strip();
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }
    }

    /** {@code fencing.lock.zookeeper.*}: a ZooKeeperLockProvider. */
    public static class ZooKeeper {

        /** The ZooKeeper ensemble, host:port,host:port. */
        private @Nullable String connectString;

        /** The parent znode of every resource's znodes, an absolute path. */
        private String keyPrefix = "/fencing/locks";

        /** The session timeout asked of the server (1s to 10m). A bare number is in seconds. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration sessionTimeout = Duration.ofSeconds(10);

        /** How long to wait for a connection (100ms to 5m). A bare number is in seconds. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration connectTimeout = Duration.ofSeconds(5);

        /**
         * The servers' tickTime (1ms to 1m), if known; unset, half the negotiated session timeout. Bounds how
         * long a lease stays valid between the provider's session checks (docs/zookeeper.md). A bare number is in
         * milliseconds.
         */
        @DurationUnit(ChronoUnit.MILLIS)
        private @Nullable Duration serverTickTime;

        /** Digest user: the session authenticates as it, and the lock's znodes get an ACL only it passes. */
        private @Nullable String username;

        /** The digest user's password. */
        private @Nullable String password;

        /**
         * ZooKeeper's own client properties for this provider only, e.g. zookeeper.client.secure=true,
         * zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty and zookeeper.ssl.*
         * trust and key stores for TLS.
         */
        private java.util.Map<String, String> clientConfig = new java.util.LinkedHashMap<>();

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public java.util.Map<String, String> getClientConfig() {
            return clientConfig;
        }

        public void setClientConfig(java.util.Map<String, String> clientConfig) {
            this.clientConfig = clientConfig;
        }

        public @Nullable String getConnectString() {
            return connectString;
        }

        public void setConnectString(@Nullable String connectString) {
            this.connectString = connectString == null ? null : connectString.strip();
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix.strip();
        }

        public Duration getSessionTimeout() {
            return sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public @Nullable Duration getServerTickTime() {
            return serverTickTime;
        }

        public void setServerTickTime(@Nullable Duration serverTickTime) {
            this.serverTickTime = serverTickTime;
        }
    }

    /** {@code fencing.flyway.*}: the toolkit's tables in the application's own Flyway run. */
    public static class Flyway {

        /**
         * Whether to add the toolkit's migrations (fencing_fence, fencing_token_counter,
         * fencing_store) to the locations of the application's Flyway run.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** {@code fencing.jdbc.*}: the JdbcFence and JdbiFence beans. */
    public static class Jdbc {

        /** The fence table (an unquoted, optionally schema-qualified name). */
        private String fenceTable = "fencing_fence";

        /**
         * Which tokens pass the fence: monotonic (a token at least the mark: one holder may
         * write many times) or strict (only a token above the mark).
         */
        private String policy = "monotonic";

        /**
         * Whether the start fails when the table of a JdbcFence or JdbiFence bean is missing or
         * from an install this build must convert (checked once, after Flyway ran; reads only the
         * catalog). Off: the first fenced write reports it instead.
         */
        private boolean checkTable = true;

        public boolean isCheckTable() {
            return checkTable;
        }

        public void setCheckTable(boolean checkTable) {
            this.checkTable = checkTable;
        }

        public String getFenceTable() {
            return fenceTable;
        }

        public void setFenceTable(String fenceTable) {
            this.fenceTable = fenceTable.strip();
        }

        public String getPolicy() {
            return policy;
        }

        public void setPolicy(String policy) {
            this.policy = policy.strip();
        }
    }

    /** {@code fencing.health.*}: the {@code fencing} health indicator. */
    /** {@code fencing.propagation.client.*}: the token on the application's outgoing calls. */
    public static class Client {

        /**
         * Whether the RestClient.Builder and WebClient.Builder beans Boot builds send the token bound
         * on the calling thread and turn a service's refusal into the store's exception.
         */
        private boolean enabled = true;

        /**
         * The name the calls' refusals are counted under (the store tag of fencing.store.writes):
         * lower-case letters, digits, '.', '_' and '-'.
         */
        private String name = "http";

        /**
         * Whether a request with no token to send (none bound on the calling thread) is refused
         * with an exception instead of sent unfenced.
         */
        private boolean requireToken;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name.strip();
        }

        public boolean isRequireToken() {
            return requireToken;
        }

        public void setRequireToken(boolean requireToken) {
            this.requireToken = requireToken;
        }
    }

    /** {@code fencing.leadership.*}: a Leadership bean campaigning for one lock, for {@code @LeaderOnly} methods. */
    public static class Leadership {

        /**
         * The lock the instances of this application campaign for (a lock name, as for any lease).
         * Unset: no Leadership bean is created.
         */
        private @Nullable String name;

        /**
         * The TTL of each term's lease, renewed every third of it: how long the lock outlives a
         * leader that died (50ms to 7d). A bare number is in seconds.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration ttl = Duration.ofSeconds(15);

        /** Whether to create the Leadership bean when fencing.leadership.name is set. */
        private boolean enabled = true;

        public @Nullable String getName() {
            return name;
        }

        public void setName(@Nullable String name) {
            this.name = name == null ? null : name.strip();
        }

        public Duration getTtl() {
            return ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    public static class Health {

        /** The resource whose state the health check asks the lock provider for (it is never locked). */
        private String resource = "fencing-health-check";

        /**
         * How long the health check waits for the lock provider's answer before reporting DOWN. A
         * bare number is in seconds.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration timeout = Duration.ofSeconds(2);

        public String getResource() {
            return resource;
        }

        public void setResource(String resource) {
            this.resource = resource.strip();
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /**
     * {@code fencing.propagation.*}: which locks' tokens may fence this service. Without either
     * setting, a handler's {@code FencingToken} parameter takes a token of any lock, and every
     * caller's configuration is part of the service's safety.
     */
    public static class Propagation {

        /**
         * The locks whose tokens may fence every path of this service: lock names, in which
         * {@code *} stands for any run of characters. A token of any other lock is refused 409
         * (foreign) before the handler runs, logged at WARN and counted as
         * {@code fencing.store.writes{outcome=foreign}}.
         */
        private List<String> allowedLocks = new ArrayList<>();

        /**
         * Locks allowed on some paths only: a request path pattern ({@code *} within a segment,
         * {@code **} across segments) to the lock names allowed there, as in
         * {@code fencing.propagation.allowed-locks-by-path.[/orders/**]=order-*}.
         */
        private Map<String, List<String>> allowedLocksByPath = new LinkedHashMap<>();

        private final Client client = new Client();

        /** The calling side: the RestClient and WebClient builders Boot builds. */
        public Client getClient() {
            return client;
        }

        public List<String> getAllowedLocks() {
            return allowedLocks;
        }

        public void setAllowedLocks(List<String> allowedLocks) {
            this.allowedLocks = allowedLocks.stream().map(String::strip).collect(Collectors.toCollection(ArrayList::new));
        }

        public Map<String, List<String>> getAllowedLocksByPath() {
            return allowedLocksByPath;
        }

        public void setAllowedLocksByPath(Map<String, List<String>> allowedLocksByPath) {
            this.allowedLocksByPath = new LinkedHashMap<>(allowedLocksByPath);
        }
    }
}
