package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.servers.PostgresTestServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tokens survive a crash of a server that commits asynchronously. The server of this test runs
 * with {@code synchronous_commit = off} (a common throughput setting) and a {@code
 * wal_writer_delay} of 10 s, so an ordinary commit reaches the WAL on disk up to 10 s late; the
 * postmaster is then killed with SIGKILL, which loses whatever WAL was still in shared memory.
 * The counter statements must have committed durably anyway: after crash recovery the counter
 * row still holds the last token handed out, and the next token is above every token handed out.
 * (The next token alone would not show it: every token is at least the server clock in µs, which
 * moved on during the crash; the counter row is what an asynchronous commit would have lost.)
 *
 * <p>(The server keeps the embedded default {@code fsync = off}: a SIGKILL loses the server's
 * memory, not the operating system's page cache, so what was written survives; that is the
 * fault this test injects.)
 */
class PostgresCrashDurabilityIT {

    private static final int GRANTS = 120;

    private static PostgresTestServer server;

    @BeforeAll
    static void startAsynchronouslyCommittingServer() throws Exception {
        server = PostgresTestServer.launch(Map.of("synchronous_commit", "off", "wal_writer_delay", "10s"));
        FencingMigrations.migrate(server.dataSource());
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CHECKPOINT"); // the schema itself is on disk; only the grants are at stake
        }
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void sessionLockTokensAreDurableWhateverTheServersSynchronousCommit() throws Exception {
        long highest = 0;
        try (PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(server.dataSource())) {
            for (int i = 0; i < GRANTS; i++) {
                try (Lease lease = locks.tryAcquire("crash-session", LeaseOptions.ofDefaults()).orElseThrow()) {
                    highest = Math.max(highest, lease.token().value());
                }
            }
        }
        crashAndRecover();
        assertThat(counterOf("crash-session")).as("the counter row after the crash").isGreaterThanOrEqualTo(highest);
        try (PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(server.dataSource());
                Lease next = locks.tryAcquire("crash-session", LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(next.token().value()).as("first token after the crash; %d were handed out before it", highest)
                    .isGreaterThan(highest);
        }
    }

    @Test
    void transactionLockTokensAreDurableWhateverTheServersSynchronousCommit() throws Exception {
        TransactionLocks locks = TransactionLocks.create();
        long highest = 0;
        try (Connection connection = server.connect()) {
            connection.setAutoCommit(false);
            for (int i = 0; i < GRANTS; i++) {
                FencingToken token = locks.lock(connection, "crash-transaction");
                connection.commit();
                highest = Math.max(highest, token.value());
            }
        }
        crashAndRecover();
        assertThat(counterOf("crash-transaction")).as("the counter row after the crash").isGreaterThanOrEqualTo(highest);
        try (Connection connection = server.connect()) {
            connection.setAutoCommit(false);
            FencingToken next = locks.lock(connection, "crash-transaction");
            connection.commit();
            assertThat(next.value()).as("first token after the crash; %d were handed out before it", highest)
                    .isGreaterThan(highest);
        }
    }

    private static long counterOf(String resource) throws Exception {
        try (Connection connection = server.connect();
                PreparedStatement read = connection.prepareStatement(
                        "SELECT token FROM fencing_token_counter WHERE resource = ?")) {
            read.setString(1, resource);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    private static void crashAndRecover() {
        server.kill();
        server.start();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            try (Connection connection = server.connect()) {
                return Optional.of(connection.isValid(1)).orElse(false);
            }
        });
    }
}
