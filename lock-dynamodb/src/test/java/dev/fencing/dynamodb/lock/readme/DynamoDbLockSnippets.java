package dev.fencing.dynamodb.lock.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.dynamodb.lock.DynamoDbLease;
import dev.fencing.dynamodb.lock.DynamoDbLockProvider;
import dev.fencing.dynamodb.lock.HeldLock;
import java.nio.charset.StandardCharsets;
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

    static void features(DynamoDbClient dynamo) throws InterruptedException {
        DynamoDbLockProvider locks = DynamoDbLockProvider.builder(dynamo)
                .table("app_items").partitionKey("pk").sortKey("sk", "lock")   // lock items beside your own
                .ownerName("billing-worker-3")                                  // shown to operators
                .build();
        locks.createTable();                                                    // or check one made by your IaC

        DynamoDbLease lease = locks.acquire("order-7", LeaseOptions.ofTtl(Duration.ofSeconds(30)),
                "started".getBytes(StandardCharsets.UTF_8));
        lease.renew(Duration.ofSeconds(30), "half way".getBytes(StandardCharsets.UTF_8));
        lease.release("checkpoint 7".getBytes(StandardCharsets.UTF_8));        // left for the next holder

        for (HeldLock held : locks.listHeldLocks()) {
            System.out.println(held.resource() + " held by " + held.ownerName() + " for " + held.remaining());
        }
        int deleted = locks.prune(Duration.ofDays(1));                          // items idle for a day
    }
}
