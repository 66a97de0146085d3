package dev.fencing.cli.readme;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.jdbc.JdbcFence;
import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * The JdbcFence snippet of docs/spring-boot.md, verbatim: compiled by the build (without Spring: the class is
 * a plain constructor-injected bean), found in the docs by {@link DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class SpringBootSnippets {

    private SpringBootSnippets() {}

    // @Service
    static class AccountService {
        private final LockProvider locks;                  // fencing.lock.type=redis → RedisLockProvider
        private final JdbcFence fence;                     // on the application's DataSource

        AccountService(LockProvider locks, JdbcFence fence) {
            this.locks = locks;
            this.fence = fence;
        }

        void credit(long account, long amount) throws Exception {
            try (Lease lease = locks.acquire("account-" + account, LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                fence.inTransaction(lease.token(), connection -> {   // a stale token: nothing written
                    try (PreparedStatement update = connection.prepareStatement(
                            "UPDATE accounts SET balance = balance + ? WHERE id = ?")) {
                        update.setLong(1, amount);
                        update.setLong(2, account);
                        return update.executeUpdate();
                    }
                });
            }
        }
    }
}
