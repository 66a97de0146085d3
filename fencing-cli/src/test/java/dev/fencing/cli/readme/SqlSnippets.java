package dev.fencing.cli.readme;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.jdbc.JdbiFence;
import dev.fencing.jdbc.RowGuard;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.migrations.Vendor;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jdbi.v3.core.Jdbi;

/** The Java snippets of docs/sql.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class SqlSnippets {

    private SqlSnippets() {}

    static void migrations(DataSource dataSource) {
        FencingMigrations.migrate(dataSource);
    }

    static void flyway(DataSource dataSource) {
        Flyway.configure().dataSource(dataSource)
              .locations("classpath:db/migration", Vendor.POSTGRESQL.location())   // or Vendor.MYSQL
              .load().migrate();
    }

    static void jdbiFence(Jdbi jdbi, LockProvider locks) throws InterruptedException {
        JdbiFence fence = JdbiFence.create(jdbi);
        try (Lease lease = locks.acquire("account-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
            fence.withExtension(lease.token(), AccountDao.class, dao -> {
                dao.setBalance(7, dao.balance(7) + 50);               // the DAO has no idea about tokens
                return null;
            });
        }
    }

    static void rowGuard(Connection connection, Lease lease) throws SQLException {
        RowGuard accounts = RowGuard.create("accounts", "id");
        accounts.update(connection, lease.token(), Map.of("id", 7), Map.of("balance", 150));
        // fencing_fence row of lease.token().resource() raised to the token (<=), then
        // UPDATE "public"."accounts" SET balance = ?, fencing_token = ? WHERE id = ? AND fencing_token <= ?
        // true: updated; false: no such row; StaleTokenException: the row (or its deleted row's mark, or
        // the lock's fence row) is newer

        accounts.execute(connection, lease.token(), Map.of("id", 7),          // your own UPDATE of that row
                "UPDATE accounts SET balance = balance - ? WHERE balance >= ?", 30, 30);
        // runs: UPDATE accounts SET fencing_token = ?, balance = balance - ?
        //       WHERE (balance >= ?) AND accounts.id = ? AND accounts.fencing_token <= ?
        // 1: updated; 0: no such row, or your condition did not match; StaleTokenException: stale
    }
}
