package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Adversarial checks of the renewal deadline (SessionLease.doRenew): a pool of one connection,
 * a renewal that fails with a statement error that is not a timeout, and a reply that comes after
 * the renewal's deadline.
 */
class PostgresRenewalAdversarialIT {

    private static String resource() {
        return "renew-attack-" + UUID.randomUUID();
    }

    /** A fresh database, migrated, with a role that is not a superuser (privileges apply to it). */
    private static PGSimpleDataSource freshDatabaseAsPlainRole(String role) throws SQLException {
        PGSimpleDataSource owner = (PGSimpleDataSource) TestServers.postgres().freshDatabase();
        FencingMigrations.migrate(owner);
        try (Connection connection = owner.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + role + "') THEN"
                    + " CREATE ROLE " + role + " LOGIN; END IF; END $$");
            statement.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + role);
        }
        PGSimpleDataSource plain = new PGSimpleDataSource();
        plain.setURL(owner.getURL());
        plain.setUser(role);
        plain.setPassword(null);
        // the owner connection (superuser) of the same database, for the administrator's statements
        return plain;
    }

    /** The user of the testkit's server URL (its superuser). */
    private static String superuser() {
        java.util.regex.Matcher user = java.util.regex.Pattern.compile(".*[?&]user=([^&]+).*")
                .matcher(TestServers.postgres().jdbcUrl());
        return user.matches() ? user.group(1) : "postgres";
    }

    private static HikariDataSource poolOfOne(DataSource source, String name) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(source);
        config.setMaximumPoolSize(1);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    /**
     * The renewal statement fails on the server with an error that is not a timeout (here: the
     * administrator revoked EXECUTE on pg_backend_pid() in this database; any statement error — a cancel,
     * a permission, a full disk — takes the same path). The session is alive and still holds the
     * lock. The lease is reported lost, the caller releases it (try-with-resources), and the
     * connection goes back to the pool of one ({@link OneConnection}, which like many simple pools
     * hands the same connection out again as it was left: HikariCP would reset the network timeout
     * itself and hide this). It must go back as it came: no renewal network
     * timeout. It comes back with the renewal's ttl/3 (1 s) and the next user's 1.5 s query is cut
     * off by the socket timeout and its connection broken.
     */
    @Test
    void aRenewalStatementErrorThatIsNotATimeoutLeavesNoShortNetworkTimeoutOnThePooledConnection() throws Exception {
        PGSimpleDataSource plain = freshDatabaseAsPlainRole("fencing_attack_plain");
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setURL(plain.getURL());
        admin.setUser(superuser());
        int defaultNetworkTimeout;
        OneConnection single = new OneConnection(plain.getConnection());
        try (PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(single.dataSource())) {
            try (Connection connection = single.getConnection(); Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SELECT current_user, rolsuper FROM pg_roles"
                            + " WHERE rolname = current_user")) {
                defaultNetworkTimeout = connection.getNetworkTimeout();
                row.next();
                assertThat(row.getString(1)).isEqualTo("fencing_attack_plain");
                assertThat(row.getBoolean(2)).as("superuser").isFalse();
            }
            String resource = resource();
            Duration ttl = Duration.ofSeconds(3);
            Lease lease = locks.tryAcquire(resource, LeaseOptions.ofTtl(ttl)).orElseThrow();
            try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("REVOKE EXECUTE ON FUNCTION pg_catalog.pg_backend_pid() FROM PUBLIC");
            }
            try (Connection connection = plain.getConnection(); Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SELECT has_function_privilege('pg_catalog.pg_backend_pid()', 'EXECUTE'),"
                            + " current_database(), current_user")) {
                row.next();
                assertThat(row.getBoolean(1)).as("the plain role may still call pg_backend_pid() in %s as %s (admin url %s)",
                        row.getString(2), row.getString(3), admin.getURL()).isFalse();
            }
            try {
                assertThatThrownBy(() -> lease.renew(ttl)).isInstanceOf(LeaseLostException.class);
            } finally {
                try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
                    statement.execute("GRANT EXECUTE ON FUNCTION pg_catalog.pg_backend_pid() TO PUBLIC");
                }
            }
            // the caller closes the lost lease (try-with-resources); the session did hold the lock all
            // along, so this release unlocks it and gives the connection back without complaint
            lease.close();
            try (Connection pooled = single.getConnection()) {
                assertThat(pooled.getNetworkTimeout()).as("network timeout of the pooled connection after the lease")
                        .isEqualTo(defaultNetworkTimeout);
                try (Statement statement = pooled.createStatement()) {
                    statement.execute("SELECT pg_sleep(1.5)"); // the next user's ordinary query
                }
            }
        } finally {
            single.closeConnection();
        }
    }

    /**
     * The renewal's reply comes after its deadline (proxy lags 3 s, TTL 900 ms, pool of one): the
     * lease is lost; the pool's next connection has the default network timeout, no open
     * transaction, and another client takes the lock with a larger token.
     */
    @Test
    void aLateRenewalReplyLeavesAUsablePoolOfOneAndTheLockToAnother() throws Exception {
        PGSimpleDataSource db = (PGSimpleDataSource) TestServers.postgres().freshDatabase();
        FencingMigrations.migrate(db);
        try (LaggingProxy proxy = ProxiedPostgres.proxyTo(db)) {
            PGSimpleDataSource viaProxy = ProxiedPostgres.through(proxy, db);
            viaProxy.setUser(superuser());
            try (HikariDataSource single = poolOfOne(viaProxy, "renew-attack-late");
                    PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(single);
                    PostgresAdvisoryLockProvider other = PostgresAdvisoryLockProvider.create(db)) {
                int defaultNetworkTimeout;
                try (Connection connection = single.getConnection()) {
                    defaultNetworkTimeout = connection.getNetworkTimeout();
                }
                String resource = resource();
                Duration ttl = Duration.ofMillis(900);
                Lease lease = locks.tryAcquire(resource, LeaseOptions.ofTtl(ttl)).orElseThrow();
                proxy.lagReplies(Duration.ofSeconds(3));
                assertThatThrownBy(() -> lease.renew(ttl)).isInstanceOf(LeaseLostException.class);
                proxy.lagReplies(Duration.ZERO);
                Lease next = await().atMost(Duration.ofSeconds(10))
                        .until(() -> other.tryAcquire(resource, LeaseOptions.ofDefaults()), Optional::isPresent)
                        .orElseThrow();
                assertThat(next.token().value()).isGreaterThan(lease.token().value());
                next.release();
                try {
                    lease.release();
                } catch (LeaseLostException expected) {
                    // lost
                }
                try (Connection pooled = single.getConnection(); Statement statement = pooled.createStatement()) {
                    assertThat(pooled.getNetworkTimeout()).isEqualTo(defaultNetworkTimeout);
                    assertThat(pooled.getAutoCommit()).isTrue();
                    try (ResultSet row = statement.executeQuery("SELECT txid_current_if_assigned() IS NULL,"
                            + " (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())")) {
                        row.next();
                        assertThat(row.getBoolean(1)).as("no open transaction").isTrue();
                        assertThat(row.getLong(2)).as("advisory locks on the pooled session").isZero();
                    }
                }
                // the pool of one still serves the provider
                locks.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow().release();
            }
        }
    }

    /**
     * A pool of one connection that hands it out as the last user left it: {@code close()} on what
     * it hands out returns it, nothing is reset.
     */
    private static final class OneConnection {
        private final Connection connection;
        private final DataSource pool;

        OneConnection(Connection connection) {
            this.connection = connection;
            Connection handedOut = (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            return null; // back to the pool, as it is
                        }
                        try {
                            return method.invoke(connection, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            this.pool = (DataSource) java.lang.reflect.Proxy.newProxyInstance(DataSource.class.getClassLoader(),
                    new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getConnection") && (args == null || args.length == 0)) {
                            return handedOut;
                        }
                        throw new UnsupportedOperationException(method.getName());
                    });
        }

        DataSource dataSource() {
            return pool;
        }

        Connection getConnection() {
            try {
                return pool.getConnection();
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        void closeConnection() throws java.sql.SQLException {
            connection.close();
        }
    }
}
