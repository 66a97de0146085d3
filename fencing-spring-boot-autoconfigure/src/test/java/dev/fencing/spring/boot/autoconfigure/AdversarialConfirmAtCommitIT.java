package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.spring.jdbc.TransactionalFence;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Adversarial attacks on the commit-time confirmation of {@link TransactionalFence}, under
 * {@code fencing.jdbc.policy=strict}, with a recording {@link FencingListener} bean.
 */
class AdversarialConfirmAtCommitIT {

    /** Every refusal reported to the application's listeners. */
    static final List<StaleTokenException> REFUSALS = new CopyOnWriteArrayList<>();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        FencingListener recordingListener() {
            return new FencingListener() {
                @Override
                public void onStaleWriteRejected(StaleTokenException rejection) {
                    REFUSALS.add(rejection);
                }
            };
        }
    }

    private static ConfigurableApplicationContext context;
    private static JdbcTemplate jdbc;
    private static TransactionalFence fence;
    private static JdbcTransactionManager jdbcTransactions;

    @BeforeAll
    static void start() {
        context = new SpringApplication(App.class).run("--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off", "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
                "--fencing.lock.type=postgres", "--fencing.jdbc.policy=strict");
        DataSource dataSource = context.getBean(DataSource.class);
        jdbc = new JdbcTemplate(dataSource);
        fence = context.getBean(TransactionalFence.class);
        jdbcTransactions = new JdbcTransactionManager(dataSource);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static TransactionTemplate tx(int propagation) {
        TransactionTemplate template = new TransactionTemplate(jdbcTransactions);
        template.setPropagationBehavior(propagation);
        return template;
    }

    private static TransactionTemplate tx() {
        return tx(TransactionDefinition.PROPAGATION_REQUIRED);
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

    private static long refusalsOf(String lock) {
        return REFUSALS.stream().filter(r -> r.getMessage() != null && r.getMessage().contains(lock)).count();
    }

    /**
     * STRICT exists so that one token passes the fence once: a second holder presenting the same
     * token (a re-issued token, a duplicate delivery) is refused. The zombie catches that refusal
     * and writes anyway, as in the swallowed-refusal attack the commit-time confirmation was added
     * for. The confirmation runs with MONOTONIC semantics, so the same token passes it and the
     * zombie's write commits after the first holder's, with the same token.
     */
    @Test
    void strictASwallowedRefusalOfAnEqualTokenIsRefusedAgainAtCommit() {
        String lock = newLock();
        long account = newAccount();
        tx().executeWithoutResult(status -> {
            fence.advance(FencingToken.of(lock, 5));
            setBalance(account, 51);
        });
        AtomicReference<StaleTokenException> refused = new AtomicReference<>();

        Throwable atCommit = catchCommit(() -> tx().executeWithoutResult(status -> {
            setBalance(account, 52);
            try {
                fence.advance(FencingToken.of(lock, 5));
            } catch (StaleTokenException e) {
                refused.set(e);
            }
        }));

        assertThat(refused.get()).as("STRICT refused the second use of token 5 at advance").isNotNull();
        assertThat(balance(account)).as("the second token-5 holder's write (its STRICT refusal swallowed),"
                + " committed after the first token-5 holder's; exception at commit: " + atCommit).isEqualTo(51);
        assertThat(atCommit).isInstanceOf(StaleTokenException.class);
    }

    /**
     * STRICT, no refusal swallowed: holder A raises the fence to token 5 in a NESTED step that rolls
     * back to its savepoint (the row's lock is released, the row is back at its previous mark);
     * holder B with the same token 5 then passes the STRICT fence and commits; A's transaction
     * commits: its confirmation of token 5 (MONOTONIC) passes over B's 5.
     */
    @Disabled("known limit, documented in docs/spring-boot.md: under STRICT, a fence undone by a rollback to a"
            + " savepoint lets another holder presenting the SAME token pass; the commit-time confirmation cannot tell"
            + " that equal mark from its own (tokens repeat only when a provider repeats one, e.g. after a restore)")
    @Test
    void strictAnEqualTokenPassingWhileTheSavepointReleasedTheRowIsRefusedAtCommit() {
        String lock = newLock();
        long account = newAccount();
        tx().executeWithoutResult(status -> fence.advance(FencingToken.of(lock, 4)));
        AtomicReference<Throwable> bOutcome = new AtomicReference<>();
        AtomicReference<Boolean> bCommitted = new AtomicReference<>(false);

        Throwable atCommit = catchCommit(() -> tx().executeWithoutResult(outer -> {
            try {
                tx(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(nested -> {
                    fence.advance(FencingToken.of(lock, 5));
                    throw new IllegalArgumentException("validation failed in the nested step");
                });
            } catch (IllegalArgumentException e) {
                // fall back
            }
            setBalance(account, 51);
            // holder B, same token, its own connection and transaction (this one is still open)
            Thread b = new Thread(() -> {
                try {
                    tx().executeWithoutResult(status -> {
                        fence.advance(FencingToken.of(lock, 5));
                        jdbc.update("UPDATE accounts SET balance = balance + 0 WHERE id = -1");
                    });
                    bCommitted.set(true);
                } catch (Throwable t) {
                    bOutcome.set(t);
                }
            });
            b.start();
            try {
                b.join(30_000);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));

        assertThat(bOutcome.get()).as("holder B's failure").isNull();
        assertThat(bCommitted.get()).as("holder B (token 5, STRICT) committed while A was open").isTrue();
        assertThat(atCommit).as("A's commit after B passed the STRICT fence with the same token 5; A's balance "
                + balance(account)).isInstanceOf(StaleTokenException.class);
    }

    /**
     * An honest holder whose transaction advanced two tokens of one lock, the older first (its lease
     * was lost and re-acquired mid-transaction, or a retry re-acquired it): both pass, nothing else
     * touched the lock. The confirmation confirms every token, in ascending order, and the older one
     * is then below the transaction's own mark.
     */
    @Test
    void twoTokensOfOneLockInOneTransactionCommit() {
        String lock = newLock();
        long account = newAccount();

        Throwable atCommit = catchCommit(() -> tx().executeWithoutResult(status -> {
            fence.advance(FencingToken.of(lock, 5));
            fence.advance(FencingToken.of(lock, 7));
            setBalance(account, 7);
        }));

        assertThat(atCommit).as("an honest transaction refused at commit by its own newer token").isNull();
        assertThat(balance(account)).isEqualTo(7);
    }

    /**
     * Observability: one swallowed refusal is one stale write, but the listener (and so
     * {@code fencing.store.writes{outcome=stale}}) hears it at advance and again at commit.
     */
    @Test
    void aSwallowedRefusalIsReportedOnce() {
        String lock = newLock();
        long account = newAccount();
        tx().executeWithoutResult(status -> fence.advance(FencingToken.of(lock, 6)));

        Throwable atCommit = catchCommit(() -> tx().executeWithoutResult(status -> {
            setBalance(account, 5);
            try {
                fence.advance(FencingToken.of(lock, 5));
            } catch (StaleTokenException e) {
                // swallowed
            }
        }));

        assertThat(atCommit).isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).isZero();
        assertThat(refusalsOf(lock)).as("refusals of token 5 reported to the listener").isEqualTo(1);
    }

    /** Held? A REQUIRES_NEW step that fences another lock does not hide the outer transaction's refusal. */
    @Test
    void anOuterSwallowedRefusalSurvivesARequiresNewStepThatFences() {
        String lock = newLock();
        String other = newLock();
        long account = newAccount();
        tx().executeWithoutResult(status -> fence.advance(FencingToken.of(lock, 6)));

        Throwable atCommit = catchCommit(() -> tx().executeWithoutResult(outer -> {
            setBalance(account, 5);
            try {
                fence.advance(FencingToken.of(lock, 5));
            } catch (StaleTokenException e) {
                // swallowed
            }
            tx(TransactionDefinition.PROPAGATION_REQUIRES_NEW)
                    .executeWithoutResult(inner -> fence.advance(FencingToken.of(other, 1)));
        }));

        assertThat(atCommit).isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).isZero();
        assertThat(jdbc.queryForObject("SELECT token FROM fencing_fence WHERE kind = 'lock' AND resource = ?",
                Long.class, other)).as("the inner REQUIRES_NEW fence committed on its own").isEqualTo(1);
    }

    /** Held? A caller sees the commit-time refusal as the StaleTokenException itself, not wrapped. */
    @Test
    void theCommitTimeRefusalReachesTheCallerUnwrapped() {
        String lock = newLock();
        tx().executeWithoutResult(status -> fence.advance(FencingToken.of(lock, 6)));
        Throwable atCommit = catchCommit(() -> tx().executeWithoutResult(status -> {
            try {
                fence.advance(FencingToken.of(lock, 5));
            } catch (StaleTokenException e) {
                // swallowed
            }
        }));
        assertThat(atCommit).isExactlyInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> {
            throw atCommit;
        }).hasMessageContaining(lock);
    }

    private static TransactionTemplate withoutSynchronization() {
        JdbcTransactionManager manager = new JdbcTransactionManager(context.getBean(DataSource.class));
        manager.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
        return new TransactionTemplate(manager);
    }

    /**
     * Held? A transaction manager with synchronization off: the commit-time confirmation cannot be
     * registered, so TransactionalFence must refuse rather than fence unconfirmed.
     */
    @Test
    void withoutSynchronizationTransactionalFenceRefuses() {
        String lock = newLock();
        Throwable thrown = catchCommit(() -> withoutSynchronization()
                .executeWithoutResult(status -> fence.advance(FencingToken.of(lock, 1))));
        assertThat(thrown).isInstanceOf(IllegalStateException.class);
        assertThat(thrown.getMessage()).as("the message names the cause: synchronization is off")
                .contains("synchronization");
    }

    /**
     * The auto-configured JdbcFence refuses inTransaction inside a Spring transaction on the same
     * DataSource (it would commit apart from the transaction's writes). With synchronization off the
     * transaction still holds a bound connection and its writes, but no "actual transaction" is
     * flagged: inTransaction runs on a connection of its own and commits its fence first.
     */
    @Test
    void withoutSynchronizationJdbcFenceInTransactionIsStillRefused() {
        String lock = newLock();
        long account = newAccount();
        dev.fencing.jdbc.JdbcFence jdbcFence = context.getBean(dev.fencing.jdbc.JdbcFence.class);
        Throwable thrown = catchCommit(() -> withoutSynchronization().executeWithoutResult(status -> {
            new JdbcTemplate(new org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy(
                    context.getBean(DataSource.class))).update("UPDATE accounts SET balance = 9 WHERE id = ?", account);
            try {
                jdbcFence.inTransaction(FencingToken.of(lock, 1), connection -> null);
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }));
        assertThat(thrown).as("inTransaction inside a (synchronization-less) Spring transaction; fence row now "
                + jdbc.queryForList("SELECT token FROM fencing_fence WHERE kind = 'lock' AND resource = ?", Long.class,
                        lock)).isInstanceOf(IllegalStateException.class);
    }

    /**
     * A REQUIRES_NEW step that fences the lock its suspended outer transaction already fenced (an
     * audit or outbox step that fences "again" to be safe): the inner transaction waits for the fence
     * row the outer one holds, and the outer one waits for the inner step — one thread, two
     * connections, no database-visible cycle and no lock timeout. Safe would be a prompt error.
     */
    @Disabled("known limit, documented in docs/spring-boot.md: a REQUIRES_NEW step fencing the lock its suspended"
            + " outer transaction already fenced waits for that transaction's row lock, which never ends; fencing-jdbc"
            + " sets no lock timeout")
    @Test
    void aRequiresNewStepFencingTheOuterLockDoesNotHang() throws Exception {
        String lock = newLock();
        java.util.concurrent.CompletableFuture<Void> run = java.util.concurrent.CompletableFuture.runAsync(
                () -> tx().executeWithoutResult(outer -> {
                    fence.advance(FencingToken.of(lock, 5));
                    tx(TransactionDefinition.PROPAGATION_REQUIRES_NEW)
                            .executeWithoutResult(inner -> fence.advance(FencingToken.of(lock, 5)));
                }));
        boolean finished;
        try {
            run.get(10, java.util.concurrent.TimeUnit.SECONDS);
            finished = true;
        } catch (java.util.concurrent.TimeoutException e) {
            finished = false;
        } catch (java.util.concurrent.ExecutionException e) {
            finished = true; // a prompt error is fine
        }
        if (!finished) {
            // unblock: cancel the waiting statement so the test leaves nothing behind
            jdbc.queryForList("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE '%fencing_fence%' AND pid <> pg_backend_pid()");
            try {
                run.get(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException ignored) {
                // cancelled
            }
        }
        assertThat(finished).as("the fenced transaction with a same-lock REQUIRES_NEW step finished within 10 s")
                .isTrue();
    }

    private static Throwable catchCommit(Runnable transaction) {
        try {
            transaction.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
