package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.PostgresTestServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Faults on a PostgreSQL server of its own, so restarting it disturbs no other test. */
class PostgresAdvisoryFaultsIT {

    private static PostgresTestServer server;

    @BeforeAll
    static void startOwnServer() {
        server = PostgresTestServer.launch();
        FencingMigrations.migrate(server.dataSource());
    }

    @AfterAll
    static void stopOwnServer() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void tokensKeepIncreasingAcrossAServerRestartAndAHeldLeaseIsReportedLost() {
        RecordingListener events = new RecordingListener();
        try (PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.builder(server.dataSource())
                .listener(events).build()) {
            long before;
            try (Lease lease = locks.tryAcquire("durable", LeaseOptions.ofDefaults()).orElseThrow()) {
                before = lease.token().value();
            }
            Lease held = locks.tryAcquire("durable", LeaseOptions.builder().ttl(Duration.ofSeconds(2)).autoRenew(true)
                    .build()).orElseThrow();

            server.restart(); // drops every session, keeps the data

            await().atMost(Duration.ofSeconds(15)).until(() -> !held.isValid());
            assertThat(events.lost()).isEqualTo(1);
            Lease after = await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
                    .until(() -> locks.tryAcquire("durable", LeaseOptions.ofDefaults()), java.util.Optional::isPresent)
                    .orElseThrow();
            assertThat(after.token().value()).isGreaterThan(held.token().value()).isGreaterThan(before);
            after.release();
        }
    }
}
