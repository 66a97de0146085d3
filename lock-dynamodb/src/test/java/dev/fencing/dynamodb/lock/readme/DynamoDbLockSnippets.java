package dev.fencing.dynamodb.lock.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.dynamodb.lock.DynamoDbLockProvider;
import java.time.Duration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The snippets of docs/dynamodb-lock.md, verbatim: compiled by this module's build, found in the
 * docs by the CLI module's {@code DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class DynamoDbLockSnippets {

    private DynamoDbLockSnippets() {}

    static void lock(DynamoDbClient dynamo, FencedStore invoices) throws InterruptedException {
        DynamoDbLockProvider.createTable(dynamo, DynamoDbLockProvider.DEFAULT_TABLE);   // once, or by your IaC
        try (DynamoDbLockProvider locks = DynamoDbLockProvider.create(dynamo)) {
            try (Lease lease = locks.acquire("invoice-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }                                      // release: owner- and token-checked, the counter stays
        }
    }
}
