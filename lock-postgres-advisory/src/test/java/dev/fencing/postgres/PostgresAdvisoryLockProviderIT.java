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

/** The provider on the testkit's PostgreSQL through a HikariCP pool. */
class PostgresAdvisoryLockProviderIT extends LockProviderContract {

    private static HikariDataSource pool;

    static synchronized DataSource pool() {
        if (pool == null) {
            DataSource db = TestServers.postgres().freshDatabase();
            FencingMigrations.migrate(db);
            HikariConfig config = new HikariConfig();
            config.setDataSource(db);
            config.setMaximumPoolSize(40);
            config.setPoolName("advisory-it");
            pool = new HikariDataSource(config);
        }
        return pool;
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
            assertThat(again.token().value()).isEqualTo(lease.token().value() + 1);
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
    void aMissingCounterTableIsNamedWithTheMigrationToRun() {
        DataSource bare = TestServers.postgres().freshDatabase();
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.create(bare))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("table 'fencing_token_counter' does not exist")
                .hasMessageContaining("FencingMigrations.migrate(dataSource)");
        assertThatThrownBy(() -> PostgresAdvisoryLockProvider.builder(bare).counterTable("x; drop"))
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
