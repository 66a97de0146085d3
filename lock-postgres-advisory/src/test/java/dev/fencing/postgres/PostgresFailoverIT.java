package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.testkit.Skip;
import dev.fencing.testkit.servers.NetworkLab;
import dev.fencing.testkit.servers.PostgresLabCluster;
import dev.fencing.testkit.servers.PostgresLabMember;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Old state comes back by failover: a PostgreSQL primary and its streaming replica, each in a
 * network namespace of its own; the replica is cut from the primary, the primary grants more
 * tokens (committed there, never replicated), dies, and the replica is promoted before the cut
 * heals (then 3 s pass, for anything the dead primary's kernel still retransmits). The promoted
 * server's counter row is the old one — checked, so the test really exercises the lost grants —
 * and the next token, through a provider that knew nothing of the failover, is still above every
 * token granted before: the clock term of {@code max(counter + 1, clock µs)} carries it. The old
 * primary then comes back as a replica of the new one, and grants go on rising.
 */
class PostgresFailoverIT {

    private static final Duration RECOVERY = Duration.ofSeconds(60);

    private static NetworkLab lab;
    private static PostgresLabCluster cluster;

    @BeforeAll
    static void startCluster() {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("needs network namespaces: " + reason));
        lab = NetworkLab.create();
        cluster = PostgresLabCluster.launchIn(lab);
        try (HikariDataSource migrating = pool()) {
            FencingMigrations.migrate(migrating);
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    @Test
    void tokensKeepRisingAcrossAPromotionThatLostTheLastGrants() throws Exception {
        String resource = "failover-" + UUID.randomUUID();
        PostgresLabMember first = cluster.primary();
        PostgresLabMember replica = cluster.members().stream().filter(m -> m != first).findFirst().orElseThrow();
        try (HikariDataSource poolA = pool(); HikariDataSource poolB = pool();
                PostgresAdvisoryLockProvider a = PostgresAdvisoryLockProvider.create(poolA);
                PostgresAdvisoryLockProvider b = PostgresAdvisoryLockProvider.create(poolB)) {
            long replicated = grant(a, resource);
            await().atMost(RECOVERY).ignoreExceptions().until(() -> counterOn(replica, resource) == replicated);

            lab.cut(first.name(), replica.name()); // replication stops; the primary goes on committing
            long highest = replicated;
            for (int i = 0; i < 5; i++) {
                long token = grant(b, resource);
                assertThat(token).isGreaterThan(highest);
                highest = token;
            }
            first.kill(); // dies with grants its replica never received
            // promoted before the cut heals: the dead primary's kernel still retransmits what its replication
            // socket held, and a replica not yet promoted would take it in (an adversary's test showed it)
            assertThat(cluster.promoteReplica(RECOVERY)).isSameAs(replica);
            lab.heal();
            Thread.sleep(3_000); // the fault window itself: time for any retransmission to arrive, not a wait for a result

            assertThat(counterOn(replica, resource)).as("the promoted replica's counter: the grants after the cut are lost")
                    .isEqualTo(replicated).isLessThan(highest);
            long lost = highest;
            AtomicLong next = new AtomicLong();
            await().atMost(RECOVERY).ignoreExceptions().untilAsserted(() -> next.set(grant(a, resource)));
            assertThat(next.get()).as("the first token after the failover; %d was granted before it", lost)
                    .isGreaterThan(lost);

            first.start(); // a fresh replica of the new primary
            first.awaitHealthy(RECOVERY);
            assertThat(cluster.primary()).isSameAs(replica);
            long after = next.get();
            AtomicLong later = new AtomicLong();
            await().atMost(RECOVERY).ignoreExceptions().untilAsserted(() -> later.set(grant(b, resource)));
            assertThat(later.get()).isGreaterThan(after);
            await().atMost(RECOVERY).ignoreExceptions().until(() -> counterOn(first, resource) == later.get());
        }
    }

    /** One grant, released at once: its token. */
    private static long grant(PostgresAdvisoryLockProvider locks, String resource) {
        try (Lease lease = locks.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            return lease.token().value();
        }
    }

    private static long counterOn(PostgresLabMember member, String resource) throws Exception {
        try (Connection connection = DriverManager.getConnection(member.jdbcUrl());
                PreparedStatement read = connection.prepareStatement(
                        "SELECT token FROM fencing_token_counter WHERE resource = ?")) {
            read.setString(1, resource);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    private static HikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(cluster.jdbcUrl());
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(5_000);
        return new HikariDataSource(config);
    }
}
