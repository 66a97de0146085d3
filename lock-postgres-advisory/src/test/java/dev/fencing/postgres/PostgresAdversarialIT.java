package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.testkit.servers.LaggingProxy;
import java.sql.Connection;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Cases an adversarial review found against the Postgres advisory
 * providers, kept as regression tests: each failed before its fix.
 */
class PostgresAdversarialIT {

    /**
     * Was broken before (d): "The wait timeout bounds the whole acquire, borrowing the connection included"
     * and the contract's "acquire returns within its wait timeout plus a small bound", on a SLOW
     * server: only the pool borrow is bounded; the acquire statement itself runs with no query
     * or socket timeout, so a server whose replies lag (here 8 s through LaggingProxy; a SIGSTOPped
     * or partitioned server hangs forever) holds tryAcquire with a 300 ms wait timeout for as long
     * as the server takes. The Redis providers bound the same call by their command/node timeout.
     * Two providers: the lagging one, and a direct one that sees the lock taken meanwhile.
     */
    @Test
    void aSlowServerHoldsTryAcquireFarPastItsWaitTimeout() throws Exception {
        DataSource direct = PostgresAdvisoryLockProviderIT.pool();
        PGSimpleDataSource database = (PGSimpleDataSource) ((HikariDataSource) direct).getDataSource();
        try (LaggingProxy proxy = ProxiedPostgres.proxyTo(database)) {
            PGSimpleDataSource viaProxy = ProxiedPostgres.through(proxy, database);
            HikariConfig config = new HikariConfig();
            config.setDataSource(viaProxy);
            config.setMaximumPoolSize(2);
            config.setPoolName("slow-server");
            try (HikariDataSource pool = new HikariDataSource(config);
                    PostgresAdvisoryLockProvider slow = PostgresAdvisoryLockProvider.create(pool);
                    PostgresAdvisoryLockProvider healthy = PostgresAdvisoryLockProvider.create(direct)) {
                String resource = "slow-" + UUID.randomUUID();
                slow.tryAcquire("slow-warm-up-" + UUID.randomUUID(), LeaseOptions.ofDefaults()).orElseThrow().release();

                proxy.lagReplies(Duration.ofSeconds(8));
                LeaseOptions brief = LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofMillis(300));
                long started = System.nanoTime();
                CompletableFuture<Optional<Lease>> attempt = CompletableFuture.supplyAsync(() -> slow.tryAcquire(resource, brief));
                Object outcome;
                try {
                    outcome = attempt.get(3, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    outcome = e.getCause();
                } catch (TimeoutException e) {
                    outcome = null;
                }
                long tookMillis = (System.nanoTime() - started) / 1_000_000;
                boolean takenMeanwhile = healthy.tryAcquire(resource, LeaseOptions.ofDefaults()).isEmpty();
                proxy.lagReplies(Duration.ZERO);
                try {
                    attempt.get(30, TimeUnit.SECONDS).ifPresent(Lease::close);
                } catch (ExecutionException ignored) {
                    // whatever it ended with, it ended
                }
                assertThat(outcome)
                        .as("tryAcquire with a 300 ms wait timeout on a server whose replies lag 8 s: still running after"
                                + " 3 s (%d ms); meanwhile the lock %s on the server", tookMillis,
                                takenMeanwhile ? "WAS taken" : "was not taken")
                        .isInstanceOf(LockUnavailableException.class);
            }
        }
    }

    /**
     * Was broken before (a) for TransactionLocks: "every grant's token is greater than every token issued
     * before". docs/postgres.md says the counter increment rolls back with the transaction, "so use such
     * a token only for writes in the same transaction". But a ROLLBACK TO SAVEPOINT (Spring's
     * NESTED propagation, Jdbi/JDBC savepoints around a step that failed) undoes the lock AND the
     * count while the transaction goes on: the transaction still holds the token and writes with
     * it, the xact lock is already gone, and a second transaction is handed the SAME token for the
     * same resource. Both advance the fence row to that token and both commit (MONOTONIC accepts
     * token == mark). Fixed by the clock floor: the second grant's token is above the first's.
     */
    @Test
    void aSavepointRollbackHandsTheSameTokenToASecondTransactionWhileTheFirstStillUsesIt() throws Exception {
        DataSource db = PostgresAdvisoryLockProviderIT.pool();
        TransactionLocks locks = TransactionLocks.create();
        String resource = "savepoint-" + UUID.randomUUID();
        try (Connection first = db.getConnection(); Connection second = db.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);

            Savepoint step = first.setSavepoint();
            FencingToken held = locks.lock(first, resource);
            first.rollback(step); // a nested step failed; the outer transaction carries on with its token
            JdbcFence.create(db).advance(first, held); // docs/postgres.md's use: a write in the same transaction

            Optional<FencingToken> other = locks.tryLock(second, resource);
            first.commit();
            if (other.isPresent()) {
                JdbcFence.create(db).advance(second, other.get());
                second.commit();
            } else {
                second.rollback();
            }
            // either the lock is still held (empty), or the new grant's token is above the one in use
            other.ifPresent(token -> assertThat(token.value())
                    .as("token granted to a second transaction (both committed fenced writes) while the first still"
                            + " wrote under %s after a ROLLBACK TO SAVEPOINT", held)
                    .isGreaterThan(held.value()));
        }
    }
}
