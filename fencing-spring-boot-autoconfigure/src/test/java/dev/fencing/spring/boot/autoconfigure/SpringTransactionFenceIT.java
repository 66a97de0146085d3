package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.spring.jdbc.TransactionalFence;
import dev.fencing.testkit.RecordingListener;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fences inside Spring-managed transactions, in a real application context (no web server) on the
 * testkit's PostgreSQL: the application's {@code JdbcTemplate} writes run in the transaction of a
 * {@link TransactionTemplate}, as {@code @Transactional} code's would. A fence must never let a
 * newer token through while an older token's writes can still commit: the auto-configured
 * {@link JdbcFence}'s own transaction would commit the fence apart from those writes, so inside a
 * Spring transaction it refuses; {@link TransactionalFence} raises the fence row on the
 * transaction's own connection instead. Two holders, each on its own thread and pooled connection.
 */
class SpringTransactionFenceIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @org.springframework.context.annotation.Bean
        RecordingListener fencingEvents() {
            return new RecordingListener();
        }
    }

    private static ConfigurableApplicationContext context;
    private static JdbcTemplate jdbc;
    private static TransactionTemplate transactions;

    @BeforeAll
    static void start() {
        context = new SpringApplication(App.class).run("--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off", "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
                "--fencing.lock.type=postgres");
        jdbc = new JdbcTemplate(context.getBean(DataSource.class));
        transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static long newAccount() {
        long id = System.nanoTime();
        jdbc.update("INSERT INTO accounts (id, balance) VALUES (?, 0)", id);
        return id;
    }

    private static long balance(long account) {
        return jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, account);
    }

    private static void setBalance(long account, long balance) {
        jdbc.update("UPDATE accounts SET balance = ? WHERE id = ?", balance, account);
    }

    /**
     * The measured hole: the zombie (token 5) passed the fence in JdbcFence's own transaction and
     * wrote through JdbcTemplate in the Spring transaction, still open; the newer holder (token 6)
     * then passed and committed; the zombie's write committed after it. Now the zombie's fence call
     * refuses and its transaction rolls back whole.
     */
    @Test
    void theAutoConfiguredJdbcFenceRefusesToRunApartFromASpringTransaction() throws Exception {
        JdbcFence fence = context.getBean(JdbcFence.class);
        String lock = "account-" + System.nanoTime();
        long account = newAccount();
        CountDownLatch zombieWrote = new CountDownLatch(1);
        CountDownLatch newerHolderDone = new CountDownLatch(1);

        CompletableFuture<Void> zombie = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
            try {
                fence.inTransaction(FencingToken.of(lock, 5), connection -> null);
                setBalance(account, 5);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            } finally {
                zombieWrote.countDown();
                await(newerHolderDone);
            }
        }));
        assertThat(zombieWrote.await(30, TimeUnit.SECONDS)).isTrue();
        long other = newAccount();
        fence.inTransaction(FencingToken.of(lock, 6), connection -> {
            connection.createStatement().executeUpdate("UPDATE accounts SET balance = 6 WHERE id = " + other);
            return null;
        });
        newerHolderDone.countDown();

        assertThatThrownBy(() -> zombie.get(30, TimeUnit.SECONDS)).as("the zombie's transaction").cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Spring-managed transaction").hasMessageContaining("TransactionalFence");
        assertThat(balance(account)).as("the zombie's write, after token 6 passed the fence").isZero();
        assertThat(balance(other)).as("the newer holder's write").isEqualTo(6);
    }

    @Test
    void outsideASpringTransactionTheJdbcFenceWorksAsBefore() throws Exception {
        JdbcFence fence = context.getBean(JdbcFence.class);
        String lock = "account-" + System.nanoTime();
        long account = newAccount();
        fence.inTransaction(FencingToken.of(lock, 2), connection -> {
            connection.createStatement().executeUpdate("UPDATE accounts SET balance = 2 WHERE id = " + account);
            return null;
        });
        assertThatThrownBy(() -> fence.inTransaction(FencingToken.of(lock, 1), connection -> null))
                .isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).isEqualTo(2);
    }

    /**
     * The zombie's JdbcTemplate update comes first, the fence after it: the fence refuses and the
     * whole transaction rolls back, the update included; the newer holder's commit stays.
     */
    @Test
    void aZombiesTransactionIsRefusedAndRolledBackWhole() {
        TransactionalFence fence = context.getBean(TransactionalFence.class);
        String lock = "account-" + System.nanoTime();
        long account = newAccount();
        transactions.executeWithoutResult(status -> {
            fence.advance(FencingToken.of(lock, 6));
            setBalance(account, 6);
        });
        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
            setBalance(account, 5);
            fence.advance(FencingToken.of(lock, 5));
        })).isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highWaterMark()).isEqualTo(6));
        assertThat(balance(account)).isEqualTo(6);
    }

    /** The auto-configured fences report each refusal to the application's listener beans. */
    @Test
    void refusalsOfTheAutoConfiguredFencesReachTheApplicationsListeners() throws Exception {
        RecordingListener events = context.getBean(RecordingListener.class);
        TransactionalFence transactional = context.getBean(TransactionalFence.class);
        JdbcFence jdbcFence = context.getBean(JdbcFence.class);
        String lock = "account-" + System.nanoTime();
        int before = events.staleRejected();
        transactions.executeWithoutResult(status -> transactional.advance(FencingToken.of(lock, 6)));

        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> transactional.advance(FencingToken.of(lock,
                5)))).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> jdbcFence.inTransaction(FencingToken.of(lock, 4), connection -> null))
                .isInstanceOf(StaleTokenException.class);

        assertThat(events.staleRejected() - before).as("one per refused write, through either fence").isEqualTo(2);
    }

    /**
     * The older holder passed the fence first and has not committed: the newer holder's fence waits
     * for the row, then advances past it — the older writes commit before the newer ones, never after.
     */
    @Test
    void aNewerHolderWaitsForTheOlderTransactionAndCommitsAfterIt() throws Exception {
        TransactionalFence fence = context.getBean(TransactionalFence.class);
        String lock = "account-" + System.nanoTime();
        long account = newAccount();
        CountDownLatch olderPassed = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> older = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
            fence.advance(FencingToken.of(lock, 5));
            setBalance(account, 5);
            olderPassed.countDown();
            await(release);
        }));
        assertThat(olderPassed.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> newer = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
            fence.advance(FencingToken.of(lock, 6));
            jdbc.update("UPDATE accounts SET balance = balance * 10 + 6 WHERE id = ?", account);
        }));
        assertThat(newer).as("the newer holder waits for the older transaction's fence row")
                .failsWithin(Duration.ofMillis(300)).withThrowableThat()
                .isInstanceOf(java.util.concurrent.TimeoutException.class);
        release.countDown();
        older.get(30, TimeUnit.SECONDS);
        newer.get(30, TimeUnit.SECONDS);
        assertThat(balance(account)).isEqualTo(56);
    }

    @Test
    void withoutATransactionTheCallIsRefusedAndNothingIsWritten() {
        TransactionalFence fence = context.getBean(TransactionalFence.class);
        String lock = "account-" + System.nanoTime();
        assertThatThrownBy(() -> fence.advance(FencingToken.of(lock, 1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no Spring-managed transaction");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM fencing_fence WHERE resource = ?", Long.class, lock))
                .isZero();
        assertThatThrownBy(() -> fence.advance(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token");
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
