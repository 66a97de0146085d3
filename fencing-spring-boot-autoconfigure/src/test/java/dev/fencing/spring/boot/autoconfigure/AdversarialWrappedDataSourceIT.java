package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.core.FencingToken;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.spring.jdbc.TransactionalFence;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The auto-configured {@link JdbcFence}'s refusal inside a Spring transaction, with the application's
 * DataSource bean a Spring wrapper of the pool. Safe: {@code inTransaction} inside a Spring
 * transaction on that DataSource is refused, so the zombie's write never commits after token 6's.
 */
class AdversarialWrappedDataSourceIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class TransactionAwareApp {
        @Bean
        DataSource dataSource(Environment environment) {
            return new TransactionAwareDataSourceProxy(pool(environment));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class LazyApp {
        @Bean
        DataSource dataSource(Environment environment) {
            return new LazyConnectionDataSourceProxy(pool(environment));
        }
    }

    static HikariDataSource pool(Environment environment) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(environment.getRequiredProperty("test.url"));
        return pool;
    }

    @Test
    void aTransactionAwareDataSourceProxyBypassesTheRefusal() throws Exception {
        zombieUsesJdbcFenceInsideASpringTransaction(TransactionAwareApp.class);
    }

    @Test
    void aLazyConnectionDataSourceProxyKeepsTheRefusal() throws Exception {
        zombieUsesJdbcFenceInsideASpringTransaction(LazyApp.class);
    }

    /** TransactionalFence itself on the TransactionAwareDataSourceProxy: the newer holder waits for the older. */
    @Test
    void transactionalFenceOnATransactionAwareProxyStillHoldsTheRow() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplication(TransactionAwareApp.class).run(
                "--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
                "--test.url=" + TestDatabases.freshPostgresUrl(), "--fencing.lock.type=postgres")) {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            TransactionalFence fence = context.getBean(TransactionalFence.class);
            String lock = "account-" + System.nanoTime();
            long account = System.nanoTime();
            jdbc.update("INSERT INTO accounts (id, balance) VALUES (?, 0)", account);
            CountDownLatch olderPassed = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> older = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(s -> {
                fence.advance(FencingToken.of(lock, 5));
                jdbc.update("UPDATE accounts SET balance = 5 WHERE id = ?", account);
                olderPassed.countDown();
                await(release);
            }));
            try {
                assertThat(olderPassed.await(30, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<Void> newer = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(s -> {
                    fence.advance(FencingToken.of(lock, 6));
                    jdbc.update("UPDATE accounts SET balance = balance * 10 + 6 WHERE id = ?", account);
                }));
                assertThat(newer).failsWithin(java.time.Duration.ofMillis(500)).withThrowableThat()
                        .isInstanceOf(java.util.concurrent.TimeoutException.class);
                release.countDown();
                older.get(30, TimeUnit.SECONDS);
                newer.get(30, TimeUnit.SECONDS);
                assertThat(jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, account))
                        .isEqualTo(56);
            } finally {
                release.countDown();
            }
        }
    }

    private static void zombieUsesJdbcFenceInsideASpringTransaction(Class<?> app) throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplication(app).run(
                "--spring.main.web-application-type=none", "--spring.main.banner-mode=off",
                "--test.url=" + TestDatabases.freshPostgresUrl(), "--fencing.lock.type=postgres")) {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            TransactionTemplate transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            JdbcFence fence = context.getBean(JdbcFence.class);
            String lock = "account-" + System.nanoTime();
            long account = System.nanoTime();
            long other = account + 1;
            jdbc.update("INSERT INTO accounts (id, balance) VALUES (?, 0), (?, 0)", account, other);
            Function<Long, Long> balance = id -> jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?",
                    Long.class, id);
            CountDownLatch zombieWrote = new CountDownLatch(1);
            CountDownLatch newerHolderDone = new CountDownLatch(1);

            CompletableFuture<Void> zombie = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(s -> {
                try {
                    fence.inTransaction(FencingToken.of(lock, 5), connection -> null);
                    jdbc.update("UPDATE accounts SET balance = 5 WHERE id = ?", account);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                } finally {
                    zombieWrote.countDown();
                    await(newerHolderDone);
                }
            }));
            assertThat(zombieWrote.await(30, TimeUnit.SECONDS)).isTrue();
            fence.inTransaction(FencingToken.of(lock, 6), connection -> {
                connection.createStatement().executeUpdate("UPDATE accounts SET balance = 6 WHERE id = " + other);
                return null;
            });
            newerHolderDone.countDown();
            Throwable zombieOutcome = null;
            try {
                zombie.get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                zombieOutcome = e.getCause();
            }
            assertThat(balance.apply(other)).as("the newer holder's write").isEqualTo(6);
            assertThat(balance.apply(account))
                    .as("token 5's write, committed after token 6 passed the fence (" + context.getBean(DataSource.class)
                            .getClass().getSimpleName() + ", " + context.getBean(PlatformTransactionManager.class)
                            .getClass().getSimpleName() + "; zombie outcome " + zombieOutcome + ")")
                    .isZero();
            assertThat(zombieOutcome).isInstanceOf(IllegalStateException.class);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("timed out waiting for the other holder");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
