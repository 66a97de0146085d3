package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.jdbc.JdbcFencedStore;
import dev.fencing.jdbc.JdbiFence;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.postgres.TransactionLocks;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;

/** The Java snippets of docs/postgres.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class PostgresSnippets {

    private PostgresSnippets() {}

    static void postgresQuickStart(DataSource dataSource) throws InterruptedException {
        FencingMigrations.migrate(dataSource);                       // creates fencing_token_counter
        FencedStore invoices = JdbcFencedStore.create(dataSource);   // or any fenced store
        try (PostgresAdvisoryLockProvider locks = PostgresAdvisoryLockProvider.create(dataSource)) {
            try (Lease lease = locks.acquire("invoice-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }
        }
    }

    static void transactionLocks(Jdbi jdbi) throws SQLException {
        jdbi.useTransaction(handle -> {
            FencingToken token = TransactionLocks.create().lock(handle.getConnection(), "account-7");
            JdbiFence.create(jdbi).advance(handle, token);
            handle.attach(AccountDao.class).setBalance(7, 150);
        });                                                          // commit releases the lock
    }
}
