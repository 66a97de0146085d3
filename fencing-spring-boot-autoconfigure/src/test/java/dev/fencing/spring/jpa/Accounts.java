package dev.fencing.spring.jpa;

import dev.fencing.core.FencingToken;
import dev.fencing.spring.jdbc.TransactionalFence;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The test application's service, written as a user would: {@code @Transactional} methods that
 * change a JPA entity or run a {@code JdbcTemplate} update under a lock's fencing token.
 */
public class Accounts {

    @PersistenceContext
    private EntityManager entities;

    private final TransactionalFence fence;
    private final JdbcTemplate jdbc;

    public Accounts(TransactionalFence fence, JdbcTemplate jdbc) {
        this.fence = fence;
        this.jdbc = jdbc;
    }

    /** The recommended order: the fence first, then the entity change. */
    @Transactional
    public void setBalance(FencingToken token, long account, long balance) {
        fence.advance(token);
        entities.find(Account.class, account).setBalance(balance);
    }

    /** The entity changed first and the fence after it: nothing is flushed before the fence. */
    @Transactional
    public void setBalanceThenFence(FencingToken token, long account, long balance) {
        entities.find(Account.class, account).setBalance(balance);
        fence.advance(token);
    }

    /** An entity change and a JdbcTemplate update in one transaction, fenced last. */
    @Transactional
    public void setBothThenFence(FencingToken token, long entityAccount, long jdbcAccount, long balance) {
        entities.find(Account.class, entityAccount).setBalance(balance);
        jdbc.update("UPDATE accounts SET balance = ? WHERE id = ?", balance, jdbcAccount);
        fence.advance(token);
    }

    /** Changes the entity, waits at {@code between} (holding the fence row), then returns to commit. */
    @Transactional
    public void setBalanceAndPause(FencingToken token, long account, long balance, Runnable between) {
        fence.advance(token);
        entities.find(Account.class, account).setBalance(balance);
        between.run();
    }

    @Transactional
    public long newAccount() {
        long id = System.nanoTime();
        entities.persist(new Account(id, 0));
        return id;
    }
}
