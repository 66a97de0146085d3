package dev.fencing.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.spring.boot.autoconfigure.TestDatabases;
import dev.fencing.spring.jdbc.TransactionalFence;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link TransactionalFence} under JPA/Hibernate, in a real application context (no web server) on
 * the testkit's PostgreSQL: {@code @Transactional} methods of an application bean change a JPA entity
 * (and a {@code JdbcTemplate} row) under a lock's token, with {@link JpaTransactionManager} running
 * the transactions. A zombie's transaction is refused and rolled back whole; the newer holder's commit
 * is kept; the fence flushes nothing.
 */
class SpringJpaTransactionFenceIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Accounts accounts(TransactionalFence fence, JdbcTemplate jdbc) {
            return new Accounts(fence, jdbc);
        }
    }

    private static ConfigurableApplicationContext context;
    private static Accounts accounts;
    private static JdbcTemplate jdbc;

    @BeforeAll
    static void start() {
        context = new SpringApplication(App.class).run("--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off", "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
                "--spring.flyway.locations=classpath:db/migration,classpath:db/jpa", "--fencing.lock.type=postgres");
        accounts = context.getBean(Accounts.class);
        jdbc = context.getBean(JdbcTemplate.class);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static long balance(long account) {
        return jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, account);
    }

    private static String newLock() {
        return "account-" + System.nanoTime();
    }

    @Test
    void theTransactionsAreJpaTransactions() {
        assertThat(context.getBean(PlatformTransactionManager.class)).isInstanceOf(JpaTransactionManager.class);
    }

    @Test
    void aZombiesEntityUpdateIsRefusedAndRolledBackWhileTheNewerCommitStays() {
        String lock = newLock();
        long account = accounts.newAccount();
        accounts.setBalance(FencingToken.of(lock, 6), account, 6);

        assertThatThrownBy(() -> accounts.setBalanceThenFence(FencingToken.of(lock, 5), account, 5))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(6));
        assertThatThrownBy(() -> accounts.setBalance(FencingToken.of(lock, 5), account, 5))
                .isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).as("the newer holder's commit").isEqualTo(6);
    }

    @Test
    void anEntityChangeAndAJdbcTemplateUpdateRollBackTogether() {
        String lock = newLock();
        long entityAccount = accounts.newAccount();
        long jdbcAccount = accounts.newAccount();
        accounts.setBothThenFence(FencingToken.of(lock, 6), entityAccount, jdbcAccount, 6);

        assertThatThrownBy(() -> accounts.setBothThenFence(FencingToken.of(lock, 5), entityAccount, jdbcAccount, 5))
                .isInstanceOf(StaleTokenException.class);
        assertThat(balance(entityAccount)).as("the entity").isEqualTo(6);
        assertThat(balance(jdbcAccount)).as("the JdbcTemplate row").isEqualTo(6);
    }

    /**
     * A negative balance fails at the flush (a check constraint). A stale fence after the entity
     * change is refused as stale, not as a constraint violation: the fence flushed nothing; with a
     * good token the violation comes at the commit, after the fence passed.
     */
    @Test
    void theFenceFlushesNothing() {
        String lock = newLock();
        long account = accounts.newAccount();
        accounts.setBalance(FencingToken.of(lock, 6), account, 6);

        assertThatThrownBy(() -> accounts.setBalanceThenFence(FencingToken.of(lock, 5), account, -1))
                .isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> accounts.setBalanceThenFence(FencingToken.of(lock, 7), account, -1))
                .isInstanceOf(DataIntegrityViolationException.class);
        assertThat(balance(account)).isEqualTo(6);
        assertThat(jdbc.queryForObject("SELECT token FROM fencing_fence WHERE kind = 'lock' AND resource = ?", Long.class, lock))
                .as("the fence row rolled back with the failed commit").isEqualTo(6);
    }

    /** The older holder passed the fence first: the newer one waits for it and commits after it. */
    @Test
    void aNewerHolderWaitsForTheOlderTransactionAndCommitsAfterIt() throws Exception {
        String lock = newLock();
        long account = accounts.newAccount();
        CountDownLatch olderPassed = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> older = CompletableFuture.runAsync(() -> accounts.setBalanceAndPause(
                FencingToken.of(lock, 5), account, 5, () -> {
                    olderPassed.countDown();
                    awaitQuietly(release);
                }));
        assertThat(olderPassed.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> newer = CompletableFuture.runAsync(() -> accounts.setBalance(FencingToken.of(lock, 6),
                account, 6));
        assertThat(newer).as("the newer holder waits for the older transaction's fence row")
                .failsWithin(Duration.ofMillis(300)).withThrowableThat().isInstanceOf(TimeoutException.class);
        release.countDown();
        older.get(30, TimeUnit.SECONDS);
        newer.get(30, TimeUnit.SECONDS);
        assertThat(balance(account)).isEqualTo(6);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("timed out waiting for the newer holder");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
