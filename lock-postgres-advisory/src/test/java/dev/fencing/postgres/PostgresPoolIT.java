package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Session leases and the caller's pool: every held lease pins one pooled connection, so a pool of
 * two with two leases held is dry. The wait timeout must bound the acquire anyway (not the pool's
 * own 3 s connectionTimeout), an interrupt must stay an interrupt, and the exhausted-pool case
 * must say what happened.
 */
class PostgresPoolIT {

    private HikariDataSource pool;
    private PostgresAdvisoryLockProvider locks;
    private Lease first;
    private Lease second;

    @BeforeEach
    void dryPool() {
        HikariConfig config = new HikariConfig();
        config.setDataSource(PostgresAdvisoryLockProviderIT.pool());
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(3000);
        config.setPoolName("dry-pool");
        pool = new HikariDataSource(config);
        locks = PostgresAdvisoryLockProvider.create(pool);
        first = locks.tryAcquire(resource(), LeaseOptions.ofDefaults()).orElseThrow();
        second = locks.tryAcquire(resource(), LeaseOptions.ofDefaults()).orElseThrow();
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
        locks.close();
        pool.close();
    }

    private static String resource() {
        return "pool-" + UUID.randomUUID();
    }

    @Test
    void theWaitTimeoutBoundsTheAcquireWhenEveryConnectionIsPinnedByALease() {
        LeaseOptions brief = LeaseOptions.ofDefaults().withWaitTimeout(Duration.ofMillis(100));
        long started = System.nanoTime();
        assertThatThrownBy(() -> locks.acquire(resource(), brief))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("no pooled connection came within the wait timeout (100 ms")
                .hasMessageContaining("every held session lock keeps one connection");
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        // the pool's own connectionTimeout is 3 s; the bound is the wait plus one borrow allowance and slack
        assertThat(took).as("acquire of a free resource from a dry pool").isLessThan(Duration.ofMillis(1500));
    }

    @Test
    void anInterruptWhileWaitingForAConnectionIsAnInterruptAndTheLateConnectionGoesBack() throws Exception {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                locks.acquire(resource(), LeaseOptions.ofDefaults().withWaitTimeout(Duration.ofSeconds(60))).close();
                outcome.set(new AssertionError("acquire returned a lease"));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getHikariPoolMXBean().getThreadsAwaitingConnection() == 1
                && waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);

        first.release(); // the abandoned borrow now gets this connection and must hand it straight back
        await().atMost(Duration.ofSeconds(10)).until(() -> pool.getHikariPoolMXBean().getActiveConnections() == 1);
        locks.tryAcquire(resource(), LeaseOptions.ofDefaults()).orElseThrow().release();
    }

    @Test
    void holdersThatNeedTheSamePoolForTheirWritesFindItDryAsDocumented() {
        // the documented deadlock: as many leases as connections, and the holder's own fenced write
        // needs one more from the same pool; the pool says so after its connectionTimeout
        HikariConfig config = new HikariConfig();
        config.setDataSource(PostgresAdvisoryLockProviderIT.pool());
        config.setMaximumPoolSize(1);
        config.setConnectionTimeout(250);
        try (HikariDataSource shared = new HikariDataSource(config);
                PostgresAdvisoryLockProvider sharing = PostgresAdvisoryLockProvider.create(shared);
                Lease held = sharing.tryAcquire(resource(), LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(held.isValid()).isTrue();
            assertThatThrownBy(shared::getConnection).isInstanceOf(SQLException.class)
                    .hasMessageContaining("Connection is not available");
            assertThatThrownBy(() -> sharing.tryAcquire(resource(), LeaseOptions.ofDefaults()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("size the pool");
        }
    }
}
