package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.redis.RedisFencedStore;
import dev.fencing.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;

/** The Java snippets of docs/redis.md, verbatim: compiled by the build (never run), checked by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class RedisSnippets {

    private RedisSnippets() {}

    static void redisQuickStart() throws InterruptedException {
        RedisClient client = RedisClient.create("redis://localhost:6379");
        try (RedisLockProvider locks = RedisLockProvider.create("redis://localhost:6379");
                StatefulRedisConnection<String, String> connection = client.connect()) {
            FencedStore invoices = RedisFencedStore.create(connection, "app:");   // or any fenced store
            try (Lease lease = locks.acquire("invoice-7", LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                invoices.update(lease.token(), "invoice-7", invoice -> invoice.orElse("") + "paid;");
            }                                          // release: owner-checked script, wakes waiters
        } finally {
            client.shutdown();
        }
    }
}
