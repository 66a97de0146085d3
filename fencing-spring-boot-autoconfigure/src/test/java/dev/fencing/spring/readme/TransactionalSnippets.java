package dev.fencing.spring.readme;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.spring.jdbc.TransactionalFence;
import java.time.Duration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The Spring transaction snippets of docs/spring-boot.md, verbatim: compiled by this module's build,
 * found in the docs by the CLI module's {@code DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class TransactionalSnippets {

    private TransactionalSnippets() {}

    // @Service
    static class AccountService {
        private final TransactionalFence fence;           // the fence row, raised in the current transaction
        private final JdbcTemplate jdbc;

        AccountService(TransactionalFence fence, JdbcTemplate jdbc) {
            this.fence = fence;
            this.jdbc = jdbc;
        }

        @Transactional
        public void debit(Lease lease, long account, long amount) {
            fence.advance(lease.token());                 // first; a stale token rolls back the whole transaction
            jdbc.update("UPDATE accounts SET balance = balance - ? WHERE id = ?", amount, account);
        }
    }

    // the caller takes the lease before the transaction starts, and releases it after the commit
    static void debitUnderTheLock(LockProvider locks, AccountService accounts) throws InterruptedException {
        try (Lease lease = locks.acquire("account-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
            accounts.debit(lease, 7, 30);
        }
    }
}
