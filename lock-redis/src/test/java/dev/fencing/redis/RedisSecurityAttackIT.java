package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.SecretScan;
import dev.fencing.testkit.servers.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adversarial checks of docs/security.md's threat table for Redis, on the TLS server with the
 * documented accounts: the lock account's provider takes the locks, and a second account that may
 * only {@code GET} and {@code SET} the token counters ({@code ~fencing:{*:token}) plays the thief.
 */
class RedisSecurityAttackIT {

    @RegisterExtension
    static final SecretScan SECRETS = SecretScan.of(SecuredRedis::secrets);

    private static final String THIEF = "counter-thief";
    private static final String THIEF_PASSWORD = "thief-" + UUID.randomUUID();

    private final RedisTestServer redis = SecuredRedis.server();

    /**
     * Why docs/security.md puts write access to the counter at risk, seeding or not: the thief
     * raises it a day ahead of the clock (below 2^53, so nothing is refused), a grant takes that
     * token, the thief sets it back to that token minus one, and the next grant takes the same
     * token again — two holders with one token, both accepted by a store under MONOTONIC. Pinned as
     * it is, so that a change (a counter kept where the lock account cannot write) fails here and
     * the table moves with it.
     */
    @Test
    void aCounterThiefMakesATokenRepeatDespiteSeeding() {
        redis.command("ACL", "SETUSER", THIEF, "on", ">" + THIEF_PASSWORD, "resetkeys", "~fencing:{*:token",
                "resetchannels", "-@all", "+hello", "+auth", "+ping", "+client|setinfo", "+client|setname", "+get",
                "+set");
        String resource = "attack-" + UUID.randomUUID();
        RedisClient thiefClient = RedisClient.create(SecuredRedis.uri(redis, THIEF, THIEF_PASSWORD));
        thiefClient.setOptions(io.lettuce.core.ClientOptions.builder().sslOptions(SecuredRedis.sslOptions()).build());
        try (RedisLockProvider first = lockProvider();
                RedisLockProvider second = lockProvider();
                StatefulRedisConnection<String, String> connection = thiefClient.connect()) {
            RedisCommands<String, String> thief = connection.sync();
            String counter = first.tokenKey(resource);
            long aDayAhead = System.currentTimeMillis() * 1000 + 86_400_000_000L;
            thief.set(counter, Long.toString(aDayAhead)); // below 2^53: no denial of service, nothing noticed
            long firstToken;
            try (Lease lease = first.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                firstToken = lease.token().value();
            }
            thief.set(counter, Long.toString(firstToken - 1));
            try (Lease lease = second.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                assertThat(lease.token().value()).as("the thief made the next grant repeat the token")
                        .isEqualTo(firstToken);
            }
        } finally {
            thiefClient.shutdown();
            redis.command("ACL", "DELUSER", THIEF);
        }
    }

    /**
     * docs/security.md's lock account is meant to be sufficient for the provider; {@code inspect}
     * (the CLI's {@code inspect} command, health checks) reads the lock key's TTL with {@code PTTL},
     * which the documented rules do not grant.
     */
    @Test
    void theDocumentedLockAccountCanInspectAHeldLock() {
        String resource = "inspect-" + UUID.randomUUID();
        try (RedisLockProvider provider = lockProvider();
                Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            var state = provider.inspect(resource).orElseThrow();
            assertThat(state.holder()).isPresent();
            assertThat(state.lastToken()).hasValue(lease.token().value());
        }
    }

    private RedisLockProvider lockProvider() {
        return RedisLockProvider.builder(SecuredRedis.uri(redis, SecuredRedis.LOCK_USER, SecuredRedis.LOCK_PASSWORD))
                .sslOptions(SecuredRedis.sslOptions()).build();
    }
}
