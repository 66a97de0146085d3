package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The provider on the testkit's PostgreSQL through a HikariCP pool. */
class PostgresAdvisoryLockProviderIT extends LockProviderContract {

    private static HikariDataSource pool;
    private static PGSimpleDataSource database;

    static synchronized DataSource pool() {
        if (pool == null) {
            DataSource db = TestServers.postgres().freshDatabase();
            FencingMigrations.migrate(db);
            database = (PGSimpleDataSource) db;
            HikariConfig config = new HikariConfig();
            config.setDataSource(db);
            config.setMaximumPoolSize(40);
            config.setPoolName("advisory-it");
            pool = new HikariDataSource(config);
        }
        return pool;
    }

    /** The JDBC URL, credentials included, of the database behind {@link #pool()}. */
    static synchronized String databaseUrl() {
        pool();
        String url = database.getURL(); // without the credentials, which the data source keeps apart
        String password = database.getPassword();
        return url + (url.contains("?") ? "&" : "?") + "user=" + database.getUser()
                + (password == null ? "" : "&password=" + password);
    }

    @AfterAll
    static void closePool() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
    }

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return PostgresAdvisoryLockProvider.builder(pool()).listener(listener).build();
    }

    /** A provider whose connections go through a proxy that is closed once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        LaggingProxy proxy = proxyToTheServer();
        LockProvider provider = PostgresAdvisoryLockProvider.create(throughProxy(proxy));
        proxy.close();
        return provider;
    }

    /**
     * A provider on a pool whose connections pass a proxy that holds replies: the acquire statement
     * runs on the server, its reply never comes, the statement's network timeout closes the
     * connection, and the server ends that session — with the lock it may have taken.
     */
    @Override
    protected java.util.Optional<UnclearReplies> unclearReplies() {
        LaggingProxy proxy = proxyToTheServer();
        HikariConfig config = new HikariConfig();
        config.setDataSource(throughProxy(proxy));
        config.setMaximumPoolSize(2);
        config.setPoolName("advisory-it-unclear");
        HikariDataSource proxied = new HikariDataSource(config);
        PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(proxied);
        return java.util.Optional.of(UnclearReplies.of(locks, proxy::holdReplies, proxy::passReplies, () -> {
            try {
                locks.close();
                proxied.close();
            } finally {
                proxy.close();
            }
        }));
    }

    private static LaggingProxy proxyToTheServer() {
        pool();
        return ProxiedPostgres.proxyTo(database);
    }

    /** The test database reached through {@code proxy}. */
    private static DataSource throughProxy(LaggingProxy proxy) {
        return ProxiedPostgres.through(proxy, database);
    }

    /**
     * A renewal the server does not answer gives up within a third of the TTL (before, a stalled
     * server held it for the statement's whole second-granular query timeout plus the late reply):
     * the lease is lost, and its session closed so the server drops the lock with it.
     */
    @Test
    void aRenewalTheServerDoesNotAnswerGivesUpWithinAThirdOfTheTtl() {
        try (LaggingProxy proxy = proxyToTheServer();
                PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(throughProxy(proxy))) {
            String resource = resource("r");
            Duration ttl = Duration.ofMillis(900);
            Lease lease = locks.tryAcquire(resource, LeaseOptions.ofTtl(ttl)).orElseThrow();
            proxy.lagReplies(Duration.ofSeconds(3));
            long started = System.nanoTime();
            assertThatThrownBy(() -> lease.renew(ttl)).isInstanceOf(dev.fencing.core.LeaseLostException.class);
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).as("renewal of a %s lease on a silent server", ttl).isLessThan(Duration.ofMillis(700));
            assertThat(lease.isValid()).isFalse();
            try (Lease next = await().atMost(Duration.ofSeconds(10))
                    .until(() -> provider.tryAcquire(resource, LeaseOptions.ofDefaults()), java.util.Optional::isPresent)
                    .orElseThrow()) {
                assertThat(next.token().value()).isGreaterThan(lease.token().value());
            }
        }
    }

    @Test
    void lockAndTokenAreOneStatementOneRoundTrip() {
        AtomicInteger statements = new AtomicInteger();
        DataSource counting = countingStatements(pool(), statements);
        try (PostgresAdvisoryLockProvider counted = PostgresAdvisoryLockProvider.create(counting)) {
            statements.set(0);
            Lease lease = counted.tryAcquire(resource("r"), LeaseOptions.ofDefaults()).orElseThrow();
            assertThat(statements).as("statements executed by one acquire").hasValue(1);
            lease.release();
            statements.set(0);
            Lease again = counted.tryAcquire(resource("r"), LeaseOptions.ofDefaults()).orElseThrow();
            assertThat(again.token().value()).isGreaterThan(lease.token().value());
            assertThat(counted.tryAcquire(resource("r"), LeaseOptions.ofDefaults())).as("held").isEmpty();
            assertThat(statements).as("a granted and a refused acquire").hasValue(2);
            again.release();
        }
    }

    @Test
    void aTerminatedBackendMarksTheLeaseLostAndFreesTheLock() throws Exception {
        String resource = resource("r");
        Lease lease = provider.tryAcquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(3)).autoRenew(true)
                .build()).orElseThrow();
        String holder = provider.inspect(resource).orElseThrow().holder().orElseThrow();
        long pid = Long.parseLong(holder.replace("backend pid ", ""));
        try (Connection admin = TestServers.postgres().connect(); Statement statement = admin.createStatement()) {
            statement.execute("SELECT pg_terminate_backend(" + pid + ")");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
        assertThat(events.lost()).as("leases reported lost").isEqualTo(1);
        try (Lease next = anotherProvider().tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(next.token().value()).isGreaterThan(lease.token().value());
        }
    }

    @Test
    void aReleasedConnectionGoesBackToThePoolWithoutTheIdleBound() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setDataSource(pool());
        config.setMaximumPoolSize(1);
        try (HikariDataSource single = new HikariDataSource(config);
                PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(single)) {
            locks.tryAcquire(resource("r"), LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow().release();
            try (Connection connection = single.getConnection(); Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SHOW idle_session_timeout")) {
                row.next();
                assertThat(row.getString(1)).isEqualTo("0");
            }
        }
    }

    @Test
    void releasePutsBackTheIdleBoundTheSessionHadBeforeTheAcquire() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setDataSource(pool());
        config.setMaximumPoolSize(1);
        config.setConnectionInitSql("SET idle_session_timeout = '7min'"); // as a role or database default would
        try (HikariDataSource single = new HikariDataSource(config);
                PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(single)) {
            Lease lease = locks.tryAcquire(resource("r"), LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow();
            lease.renew(Duration.ofSeconds(3));
            lease.release();
            assertThat(idleSessionTimeout(single)).isEqualTo("7min");
            assertThat(locks.tryAcquire(resource("r"), LeaseOptions.ofTtl(Duration.ofSeconds(2)))).as("refused? no: free")
                    .hasValueSatisfying(Lease::release);
            assertThat(idleSessionTimeout(single)).isEqualTo("7min");
        }
    }

    @Test
    void aLockWhoseCounterUpsertReturnedNoRowIsReleasedBeforeTheConnectionGoesBack() throws Exception {
        String table = "swallowing_counter";
        try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + table + " (LIKE fencing_token_counter INCLUDING ALL)");
            statement.execute("CREATE OR REPLACE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS"
                    + " 'BEGIN RETURN NULL; END'");
            statement.execute("DROP TRIGGER IF EXISTS swallow ON " + table);
            statement.execute("CREATE TRIGGER swallow BEFORE INSERT OR UPDATE ON " + table
                    + " FOR EACH ROW EXECUTE FUNCTION swallow()");
        }
        String resource = resource("r");
        HikariConfig config = new HikariConfig();
        config.setDataSource(pool());
        config.setMaximumPoolSize(1);
        try (HikariDataSource single = new HikariDataSource(config);
                PostgresAdvisoryLockProvider swallowed = PostgresAdvisoryLockProvider.builder(single)
                        .table(table).build()) {
            assertThatThrownBy(() -> swallowed.tryAcquire(resource, LeaseOptions.ofDefaults()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("returned no token")
                    .hasMessageContaining(table);
            try (Connection pooled = single.getConnection(); Statement statement = pooled.createStatement();
                    ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
                            + " AND pid = pg_backend_pid()")) {
                row.next();
                assertThat(row.getLong(1)).as("advisory locks held by the pooled session").isZero();
            }
            assertThat(provider.tryAcquire(resource, LeaseOptions.ofDefaults())).as("the lock is free")
                    .hasValueSatisfying(Lease::release);
        }
    }

    private static String idleSessionTimeout(DataSource dataSource) throws Exception {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SHOW idle_session_timeout")) {
            row.next();
            return row.getString(1);
        }
    }

    @Test
    void aMissingCounterTableIsNamedWithTheMigrationToRun() {
        DataSource bare = TestServers.postgres().freshDatabase();
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.create(bare))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("table 'fencing_token_counter' does not exist")
                .hasMessageContaining("FencingMigrations.migrate(dataSource)");
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.builder(bare).table("x; drop"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'x; drop'");
    }

    /** Counts executed statements: a JDBC proxy, not a mock — every call still goes to the real server. */
    static DataSource countingStatements(DataSource target, AtomicInteger count) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = method.invoke(target, args);
                    return result instanceof Connection connection ? counting(connection, count) : result;
                });
    }

    private static Connection counting(Connection connection, AtomicInteger count) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = method.invoke(connection, args);
            if (result instanceof java.sql.PreparedStatement statement) {
                return Proxy.newProxyInstance(Connection.class.getClassLoader(),
                        new Class<?>[] {java.sql.PreparedStatement.class}, (p, m, a) -> {
                            if (m.getName().startsWith("execute")) {
                                count.incrementAndGet();
                            }
                            return m.invoke(statement, a);
                        });
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                handler);
    }
}
