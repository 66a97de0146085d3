package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import java.time.Duration;

/** The README's snippet of the API in one screen, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class ApiSnippets {

    private ApiSnippets() {}

    static void apiInOneScreen(LockProvider locks, FencedStore accounts) throws InterruptedException {
        // locks: any LockProvider — Redis, Postgres advisory, Redlock, or InMemoryLockProvider
        // accounts: any FencedStore — JDBC, DynamoDB, S3, Redis, or InMemoryFencedStore
        try (Lease lease = locks.acquire("account-42", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
            // read-modify-write that loses nothing, even if a zombie writes in between
            accounts.update(lease.token(), "account-42",
                    balance -> Integer.toString(Integer.parseInt(balance.orElse("0")) + 50));
        } catch (StaleTokenException e) {
            // a newer holder has written: this holder's lease is over. Stop; do not retry with this token.
        }
    }
}
