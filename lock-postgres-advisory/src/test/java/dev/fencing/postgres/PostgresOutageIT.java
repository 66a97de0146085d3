package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.LaggingProxy;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * PostgreSQL goes away (the proxy in front of it closes: connections dropped, new ones refused)
 * while the pool and the provider live on. An acquire must fail within its wait timeout and say
 * that the database did not answer, with the driver's reason — not that the pool ran dry.
 */
class PostgresOutageIT {

    @Test
    void anAcquireDuringAnOutageSaysPostgreSqlDidNotAnswerAndWhyWithinTheWait() {
        PGSimpleDataSource database =
                (PGSimpleDataSource) ((HikariDataSource) PostgresAdvisoryLockProviderIT.pool()).getDataSource();
        LaggingProxy proxy = ProxiedPostgres.proxyTo(database);
        HikariConfig config = new HikariConfig();
        config.setDataSource(ProxiedPostgres.through(proxy, database));
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(1500); // the pool's own bound, longer than the acquire's wait
        config.setPoolName("outage");
        try (HikariDataSource pool = new HikariDataSource(config);
                PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(pool)) {
            locks.tryAcquire("outage-warm-up-" + UUID.randomUUID(), LeaseOptions.ofDefaults()).orElseThrow().release();

            proxy.close(); // the database stops: open connections drop, new ones are refused
            LeaseOptions brief = LeaseOptions.ofDefaults().withWaitTimeout(Duration.ofMillis(300));
            // the first acquires fail on a dropped pooled connection, or wait for the pool: either way
            // within the wait; once the pool has given its answer (after its own 1.5 s), they name the cause
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                long started = System.nanoTime();
                assertThatThrownBy(() -> locks.tryAcquire("outage-" + UUID.randomUUID(), brief))
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("PostgreSQL did not answer")
                        .hasMessageContaining("Connection to 127.0.0.1:" + proxy.port() + " refused")
                        .hasMessageNotContaining("size the pool");
                assertThat(Duration.ofNanos(System.nanoTime() - started)).as("an acquire during the outage")
                        .isLessThan(Duration.ofMillis(1200));
            });
            long inspected = System.nanoTime();
            assertThatThrownBy(() -> locks.inspect("outage-inspected"))
                    .as("inspect, which is what a health check asks, carries the cause too")
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("Connection to 127.0.0.1:" + proxy.port() + " refused");
            assertThat(Duration.ofNanos(System.nanoTime() - inspected)).as("inspect during the outage")
                    .isLessThan(PostgresAdvisoryLockProvider.INSPECT_WAIT.plusMillis(900));
        }
    }
}
