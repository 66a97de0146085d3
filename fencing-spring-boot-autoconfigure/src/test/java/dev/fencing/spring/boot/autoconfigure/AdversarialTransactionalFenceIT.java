package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.spring.jdbc.TransactionalFence;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Adversarial attacks on {@link TransactionalFence}: two holders of one lock (token 5, the zombie,
 * and token 6, the newer holder) on the testkit's PostgreSQL, in a real application context. Each
 * test asserts the safe outcome: the zombie's writes never commit after token 6's.
 */
class AdversarialTransactionalFenceIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    private static ConfigurableApplicationContext context;
    private static JdbcTemplate jdbc;
    private static TransactionalFence fence;
    /** The application's transaction manager (JPA's: spring-boot-data-jpa is on the test classpath). */
    private static TransactionTemplate transactions;
    /** A plain JDBC transaction manager on the same DataSource: it supports NESTED (savepoints). */
    private static JdbcTransactionManager jdbcTransactions;

    @BeforeAll
    static void start() {
        context = new SpringApplication(App.class).run("--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off", "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
                "--fencing.lock.type=postgres");
        DataSource dataSource = context.getBean(DataSource.class);
        jdbc = new JdbcTemplate(dataSource);
        fence = context.getBean(TransactionalFence.class);
        transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        jdbcTransactions = new JdbcTransactionManager(dataSource);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static TransactionTemplate jdbcTx(int propagation) {
        TransactionTemplate template = new TransactionTemplate(jdbcTransactions);
        template.setPropagationBehavior(propagation);
        return template;
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

    private static String newLock() {
        return "account-" + System.nanoTime();
    }

    private static void newerHolderCommits(String lock, long account) {
        transactions.executeWithoutResult(status -> {
            fence.advance(FencingToken.of(lock, 6));
            setBalance(account, 6);
        });
    }

    /**
     * Catch-and-continue: the zombie writes, then its fence throws StaleTokenException, which its
     * own code catches (a generic catch, a retry helper, a logging aspect). Safe: the zombie's write
     * never commits. The fence leaves the transaction able to commit.
     */
    @Test
    void aSwallowedStaleTokenExceptionIsRefusedAgainAtCommit() {
        String lock = newLock();
        long account = newAccount();
        newerHolderCommits(lock, account);
        AtomicReference<StaleTokenException> refused = new AtomicReference<>();

        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
            setBalance(account, 5);
            try {
                fence.advance(FencingToken.of(lock, 5));
            } catch (StaleTokenException e) {
                refused.set(e);
            }
        })).as("the commit's confirmation of token 5").isInstanceOf(StaleTokenException.class);

        assertThat(refused.get()).as("the fence refused token 5").isNotNull();
        assertThat(balance(account)).as("token 5's write, committed after token 6's although its fence refused it")
                .isEqualTo(6);
    }

    /**
     * The fence in a NESTED step (a savepoint) of the zombie's transaction: the StaleTokenException
     * rolls back to the savepoint only; the outer code catches it, as NESTED callers do, and its
     * writes made before the call commit. The javadoc says a refusal rolls the whole transaction
     * back, "writes made before the call included".
     */
    @Test
    void aStaleFenceInANestedStepIsRefusedAgainAtTheOuterCommit() {
        String lock = newLock();
        long account = newAccount();
        newerHolderCommits(lock, account);

        assertThatThrownBy(() -> jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(outer -> {
            setBalance(account, 5);
            try {
                jdbcTx(TransactionDefinition.PROPAGATION_NESTED)
                        .executeWithoutResult(nested -> fence.advance(FencingToken.of(lock, 5)));
            } catch (StaleTokenException e) {
                // the nested step failed; carry on with the rest of the unit of work
            }
        })).as("the outer commit's confirmation of token 5").isInstanceOf(StaleTokenException.class);

        assertThat(balance(account)).as("token 5's write made before its refused fence").isEqualTo(6);
    }

    /** The same with a participating (REQUIRED) inner step: Spring marks the whole transaction rollback-only. */
    @Test
    void aStaleFenceInAParticipatingStepRollsTheOuterTransactionBack() {
        String lock = newLock();
        long account = newAccount();
        newerHolderCommits(lock, account);

        assertThatThrownBy(() -> jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(outer -> {
            setBalance(account, 5);
            try {
                jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED)
                        .executeWithoutResult(inner -> fence.advance(FencingToken.of(lock, 5)));
            } catch (StaleTokenException e) {
                // swallowed
            }
        })).isInstanceOf(UnexpectedRollbackException.class);
        assertThat(balance(account)).isEqualTo(6);
    }

    /**
     * No refusal is swallowed here. The zombie (token 5, still the newest token when it fences) raises
     * the fence in a NESTED step that then fails for an unrelated reason and rolls back to its
     * savepoint; the outer transaction catches that and writes its fallback. PostgreSQL releases the
     * fence row's lock with the savepoint, so the newer holder (token 6) passes the fence and commits
     * while the zombie's transaction is still open — and the zombie's write commits after token 6's.
     * The javadoc: "the fence row stays locked until the transaction ends".
     */
    @Test
    void aFenceInARolledBackSavepointCannotLetTheOlderTransactionCommitAfterANewerOne() throws Exception {
        String lock = newLock();
        long account = newAccount();
        long other = newAccount();
        CountDownLatch zombieWrote = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);

        CompletableFuture<Void> zombie = CompletableFuture.runAsync(() -> jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED)
                .executeWithoutResult(outer -> {
                    try {
                        jdbcTx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(nested -> {
                            fence.advance(FencingToken.of(lock, 5));
                            throw new IllegalArgumentException("validation failed in the nested step");
                        });
                    } catch (IllegalArgumentException e) {
                        // fall back: write the account another way, in the same (fenced) transaction
                    }
                    setBalance(account, 5);
                    zombieWrote.countDown();
                    await(release);
                }));
        try {
            assertThat(zombieWrote.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> newer = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
                fence.advance(FencingToken.of(lock, 6));
                setBalance(other, 6);
            }));
            boolean newerCommittedFirst;
            try {
                newer.get(2, TimeUnit.SECONDS);
                newerCommittedFirst = true;
            } catch (TimeoutException e) {
                newerCommittedFirst = false;
            }
            release.countDown();
            newer.get(30, TimeUnit.SECONDS);
            if (newerCommittedFirst) {
                // the savepoint released the row's lock, so token 6 passed; token 5 must not commit after it
                assertThatThrownBy(() -> zombie.get(30, TimeUnit.SECONDS)).as("token 5's commit after token 6's")
                        .hasCauseInstanceOf(StaleTokenException.class);
                assertThat(balance(account)).as("token 5's write").isZero();
            } else {
                zombie.get(30, TimeUnit.SECONDS);
            }
            assertThat(balance(other)).as("token 6's write").isEqualTo(6);
            assertThat(jdbc.queryForObject("SELECT token FROM fencing_fence WHERE kind = 'lock' AND resource = ?",
                    Long.class, lock)).isEqualTo(6);
        } finally {
            release.countDown();
        }
    }

    /**
     * REPEATABLE READ: the zombie's snapshot is taken (a read) before token 6 commits; its fence comes
     * after. Safe: the fence refuses (stale or a serialization failure) and nothing of token 5 commits.
     */
    @Test
    void aZombieWithAnOldSnapshotIsRefused() throws Exception {
        for (int isolation : new int[] {TransactionDefinition.ISOLATION_REPEATABLE_READ,
                TransactionDefinition.ISOLATION_SERIALIZABLE}) {
            for (boolean rowExists : new boolean[] {true, false}) {
                String lock = newLock();
                long account = newAccount();
                if (rowExists) {
                    transactions.executeWithoutResult(status -> fence.advance(FencingToken.of(lock, 4)));
                }
                CountDownLatch snapshot = new CountDownLatch(1);
                CountDownLatch newerDone = new CountDownLatch(1);
                TransactionTemplate zombieTx = jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED);
                zombieTx.setIsolationLevel(isolation);
                CompletableFuture<Void> zombie = CompletableFuture.runAsync(() -> zombieTx.executeWithoutResult(s -> {
                    balance(account);
                    snapshot.countDown();
                    await(newerDone);
                    fence.advance(FencingToken.of(lock, 5));
                    setBalance(account, 5);
                }));
                assertThat(snapshot.await(30, TimeUnit.SECONDS)).isTrue();
                newerHolderCommits(lock, account);
                newerDone.countDown();
                assertThatThrownBy(() -> zombie.get(30, TimeUnit.SECONDS)).as("isolation " + isolation + ", row " + rowExists)
                        .satisfies(e -> System.out.println("ADV30 isolation " + isolation + " row " + rowExists + ": "
                                + e.getCause()));
                assertThat(balance(account)).as("isolation " + isolation + ", row " + rowExists).isEqualTo(6);
            }
        }
    }

    /** readOnly and SUPPORTS (no actual transaction): the fence refuses before writing anything. */
    @Test
    void readOnlyAndSupportsAreRefused() {
        String lock = newLock();
        TransactionTemplate readOnly = jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED);
        readOnly.setReadOnly(true);
        assertThatThrownBy(() -> readOnly.executeWithoutResult(s -> fence.advance(FencingToken.of(lock, 5))))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> jdbcTx(TransactionDefinition.PROPAGATION_SUPPORTS)
                .executeWithoutResult(s -> fence.advance(FencingToken.of(lock, 5))))
                .isInstanceOf(IllegalStateException.class);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM fencing_fence WHERE resource = ?", Long.class, lock))
                .isZero();
    }

    /** The fence twice in one transaction: a lower token after a higher one of the same lock is refused. */
    @Test
    void aDecreasingSecondFenceInOneTransactionIsRefused() {
        String lock = newLock();
        long account = newAccount();
        assertThatThrownBy(() -> transactions.executeWithoutResult(s -> {
            fence.advance(FencingToken.of(lock, 6));
            setBalance(account, 5);
            fence.advance(FencingToken.of(lock, 5));
        })).isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM fencing_fence WHERE resource = ?", Long.class, lock))
                .isZero();
    }

    /**
     * The fence in the outer transaction first, then again in a NESTED step that rolls back: the
     * outer transaction keeps the row, so the newer holder waits for it.
     */
    @Test
    void aFenceInTheOuterTransactionSurvivesARolledBackNestedRefence() throws Exception {
        String lock = newLock();
        long account = newAccount();
        CountDownLatch zombieWrote = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> zombie = CompletableFuture.runAsync(() -> jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED)
                .executeWithoutResult(outer -> {
                    fence.advance(FencingToken.of(lock, 5));
                    try {
                        jdbcTx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(nested -> {
                            fence.advance(FencingToken.of(lock, 5));
                            throw new IllegalArgumentException("validation failed in the nested step");
                        });
                    } catch (IllegalArgumentException e) {
                        // carry on
                    }
                    setBalance(account, 5);
                    zombieWrote.countDown();
                    await(release);
                }));
        try {
            assertThat(zombieWrote.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> newer = CompletableFuture.runAsync(() -> transactions.executeWithoutResult(status -> {
                fence.advance(FencingToken.of(lock, 6));
                jdbc.update("UPDATE accounts SET balance = balance * 10 + 6 WHERE id = ?", account);
            }));
            assertThat(newer).failsWithin(Duration.ofMillis(500)).withThrowableThat().isInstanceOf(TimeoutException.class);
            release.countDown();
            zombie.get(30, TimeUnit.SECONDS);
            newer.get(30, TimeUnit.SECONDS);
            assertThat(balance(account)).isEqualTo(56);
        } finally {
            release.countDown();
        }
    }

    /** Under a plain JdbcTransactionManager (Boot's default without JPA) the JdbcFence refusal holds too. */
    @Test
    void theJdbcFenceRefusalHoldsUnderAJdbcTransactionManager() {
        dev.fencing.jdbc.JdbcFence jdbcFence = context.getBean(dev.fencing.jdbc.JdbcFence.class);
        String lock = newLock();
        assertThatThrownBy(() -> jdbcTx(TransactionDefinition.PROPAGATION_REQUIRED).executeWithoutResult(s -> {
            try {
                jdbcFence.inTransaction(FencingToken.of(lock, 5), connection -> null);
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("TransactionalFence");
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
