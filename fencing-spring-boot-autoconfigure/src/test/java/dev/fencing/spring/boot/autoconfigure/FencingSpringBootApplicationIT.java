package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real Spring Boot application — web server, actuator, DataSource, Flyway, Spring Data Redis,
 * Micrometer — with the toolkit's auto-configuration, against the testkit's Redis and PostgreSQL:
 * a lease from the {@code LockProvider} bean, writes through the {@code JdbcFence} bean (the stale
 * one refused), the {@code fencing} indicator on the health endpoint over HTTP, the toolkit's tables
 * created by the application's own Flyway run in the application's history table, the lease meters.
 */
class FencingSpringBootApplicationIT {

    private static final LeaseOptions OPTIONS = LeaseOptions.ofTtl(Duration.ofSeconds(10));

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    private static ConfigurableApplicationContext start(String databaseUrl, String... properties) {
        RedisTestServer redis = TestServers.redis();
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--spring.datasource.url=" + databaseUrl,
                "--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
                "--management.endpoint.health.show-details=always"));
        for (String property : properties) {
            args.add("--" + property);
        }
        return new SpringApplication(App.class).run(args.toArray(String[]::new));
    }

    @Test
    void redisLocksAndAFencedStoreInARealApplication() throws Exception {
        String databaseUrl = TestDatabases.freshPostgresUrl();
        try (ConfigurableApplicationContext context = start(databaseUrl, "fencing.lock.type=redis")) {
            LockProvider locks = context.getBean(LockProvider.class);
            assertThat(locks).isInstanceOf(RedisLockProvider.class);
            JdbcFence fence = context.getBean(JdbcFence.class);
            DataSource dataSource = context.getBean(DataSource.class);
            String resource = "account-7-" + System.nanoTime();

            FencingToken first;
            try (Lease lease = locks.acquire(resource, OPTIONS)) {
                first = lease.token();
                fence.inTransaction(first, connection -> addToBalance(connection, 50));
            }
            try (Lease lease = locks.acquire(resource, OPTIONS)) {
                assertThat(lease.token().value()).isGreaterThan(first.value());
                fence.inTransaction(lease.token(), connection -> addToBalance(connection, 25));
            }
            // the first holder, paused past its lease, comes back: the fence refuses it, nothing is written
            assertThatThrownBy(() -> fence.inTransaction(first, connection -> addToBalance(connection, 1000)))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(balance(dataSource)).isEqualTo(175);

            assertThat(healthOverHttp(context)).contains("\"status\":\"UP\"").contains("RedisLockProvider");
            assertTheToolkitsTablesCameFromTheApplicationsFlyway(dataSource);

            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("fencing.lease.acquire").tag("provider", "redis").tag("outcome", "granted")
                    .timer().count()).isEqualTo(2);
        }
    }

    @Test
    void postgresLocksAreBuiltAfterTheApplicationsFlywayCreatedTheirCounterTable() throws Exception {
        String databaseUrl = TestDatabases.freshPostgresUrl();
        try (ConfigurableApplicationContext context = start(databaseUrl, "fencing.lock.type=postgres")) {
            LockProvider locks = context.getBean(LockProvider.class);
            assertThat(locks).isInstanceOf(PostgresAdvisoryLockProvider.class);
            try (Lease lease = locks.acquire("account-7", OPTIONS)) {
                context.getBean(JdbcFence.class).inTransaction(lease.token(), connection -> addToBalance(connection, 1));
            }
            assertThat(balance(context.getBean(DataSource.class))).isEqualTo(101);
            assertThat(healthOverHttp(context)).contains("\"status\":\"UP\"")
                    .contains("PostgresAdvisoryLockProvider");
            assertTheToolkitsTablesCameFromTheApplicationsFlyway(context.getBean(DataSource.class));
        }
    }

    private static int addToBalance(Connection connection, long amount) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE accounts SET balance = balance + ? WHERE id = 7")) {
            update.setLong(1, amount);
            return update.executeUpdate();
        }
    }

    private static long balance(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                ResultSet row = connection.createStatement().executeQuery("SELECT balance FROM accounts WHERE id = 7")) {
            row.next();
            return row.getLong(1);
        }
    }

    private static String healthOverHttp(ConfigurableApplicationContext context)
            throws IOException, InterruptedException {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/health/fencing")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    /** One history table, the application's, holding its V1 and the toolkit's repeatable migration. */
    private static void assertTheToolkitsTablesCameFromTheApplicationsFlyway(DataSource dataSource)
            throws SQLException {
        List<String> history = new ArrayList<>();
        try (Connection connection = dataSource.getConnection();
                ResultSet rows = connection.createStatement().executeQuery(
                        "SELECT coalesce(version, 'R'), description, success FROM flyway_schema_history"
                                + " ORDER BY installed_rank")) {
            while (rows.next()) {
                history.add(rows.getString(1) + " " + rows.getString(2) + " " + rows.getBoolean(3));
            }
        }
        assertThat(history).containsExactly("1 accounts true", "R fencing tables true");
        try (Connection connection = dataSource.getConnection();
                ResultSet row = connection.createStatement().executeQuery("SELECT to_regclass('fencing_fence') IS NOT NULL,"
                        + " to_regclass('fencing_token_counter') IS NOT NULL, to_regclass('fencing_store') IS NOT NULL,"
                        + " to_regclass('fencing_schema_history') IS NULL")) {
            row.next();
            assertThat(List.of(row.getBoolean(1), row.getBoolean(2), row.getBoolean(3), row.getBoolean(4)))
                    .as("fencing_fence, fencing_token_counter, fencing_store created; no fencing_schema_history")
                    .containsOnly(true);
        }
    }
}
