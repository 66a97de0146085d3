package dev.fencing.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.spring.boot.autoconfigure.TestDatabases;
import dev.fencing.spring.jdbc.TransactionalFence;
import jakarta.persistence.EntityManager;
import jakarta.persistence.FlushModeType;
import jakarta.persistence.PersistenceContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/** Adversarial JPA/Hibernate attacks on {@link TransactionalFence}: token 6 commits, then the zombie (token 5). */
class AdversarialJpaFenceIT {

    /** A user's service with the attacks' shapes. */
    public static class Zombie {
        @PersistenceContext
        private EntityManager entities;

        private final TransactionalFence fence;

        public Zombie(TransactionalFence fence) {
            this.fence = fence;
        }

        /** The entity change flushed by a native query (FlushMode AUTO) before the fence. */
        @Transactional
        public void flushThenFence(FencingToken token, long account, long balance) {
            entities.find(Account.class, account).setBalance(balance);
            entities.createNativeQuery("SELECT count(*) FROM accounts").getSingleResult();
            entities.flush();
            fence.advance(token);
        }

        /** FlushMode COMMIT: the change is flushed at the commit, after the fence. */
        @Transactional
        public void flushModeCommit(FencingToken token, long account, long balance) {
            entities.setFlushMode(FlushModeType.COMMIT);
            entities.find(Account.class, account).setBalance(balance);
            fence.advance(token);
        }

        /** The refusal caught in the service: the entity change is flushed and committed. */
        @Transactional
        public void swallowing(FencingToken token, long account, long balance) {
            entities.find(Account.class, account).setBalance(balance);
            try {
                fence.advance(token);
            } catch (StaleTokenException e) {
                // logged and ignored
            }
        }

        /** REPEATABLE READ: the entity is read (snapshot taken) before the newer holder commits. */
        @Transactional(isolation = Isolation.REPEATABLE_READ)
        public void oldSnapshot(FencingToken token, long account, long balance, Runnable between) {
            Account read = entities.find(Account.class, account);
            between.run();
            fence.advance(token);
            read.setBalance(balance);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Accounts accounts(TransactionalFence fence, JdbcTemplate jdbc) {
            return new Accounts(fence, jdbc);
        }

        @Bean
        Zombie zombie(TransactionalFence fence) {
            return new Zombie(fence);
        }
    }

    private static ConfigurableApplicationContext context;
    private static Accounts accounts;
    private static Zombie zombie;
    private static JdbcTemplate jdbc;

    @BeforeAll
    static void start() {
        context = new SpringApplication(App.class).run("--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off", "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
                "--spring.flyway.locations=classpath:db/migration,classpath:db/jpa", "--fencing.lock.type=postgres");
        accounts = context.getBean(Accounts.class);
        zombie = context.getBean(Zombie.class);
        jdbc = context.getBean(JdbcTemplate.class);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static long balance(long account) {
        return jdbc.queryForObject("SELECT balance FROM accounts WHERE id = ?", Long.class, account);
    }

    @Test
    void aFlushBeforeTheFenceIsRolledBack() {
        String lock = "account-" + System.nanoTime();
        long account = accounts.newAccount();
        accounts.setBalance(FencingToken.of(lock, 6), account, 6);
        assertThatThrownBy(() -> zombie.flushThenFence(FencingToken.of(lock, 5), account, 5))
                .isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).isEqualTo(6);
    }

    @Test
    void flushModeCommitIsRolledBack() {
        String lock = "account-" + System.nanoTime();
        long account = accounts.newAccount();
        accounts.setBalance(FencingToken.of(lock, 6), account, 6);
        assertThatThrownBy(() -> zombie.flushModeCommit(FencingToken.of(lock, 5), account, 5))
                .isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).isEqualTo(6);
    }

    @Test
    void aSwallowedRefusalIsRefusedAgainAtCommit() {
        String lock = "account-" + System.nanoTime();
        long account = accounts.newAccount();
        accounts.setBalance(FencingToken.of(lock, 6), account, 6);
        assertThatThrownBy(() -> zombie.swallowing(FencingToken.of(lock, 5), account, 5))
                .as("the commit's confirmation of token 5").isInstanceOf(StaleTokenException.class);
        assertThat(balance(account)).as("token 5's entity change, after its fence refused it").isEqualTo(6);
    }

    @Test
    void anOldRepeatableReadSnapshotIsRefused() throws Exception {
        String lock = "account-" + System.nanoTime();
        long account = accounts.newAccount();
        accounts.setBalance(FencingToken.of(lock, 4), account, 4);
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch newerDone = new CountDownLatch(1);
        CompletableFuture<Void> old = CompletableFuture.runAsync(() -> zombie.oldSnapshot(FencingToken.of(lock, 5),
                account, 5, () -> {
                    read.countDown();
                    try {
                        newerDone.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
        assertThat(read.await(30, TimeUnit.SECONDS)).isTrue();
        accounts.setBalance(FencingToken.of(lock, 6), account, 6);
        newerDone.countDown();
        assertThatThrownBy(() -> old.get(30, TimeUnit.SECONDS)).isNotNull();
        assertThat(balance(account)).isEqualTo(6);
    }
}
