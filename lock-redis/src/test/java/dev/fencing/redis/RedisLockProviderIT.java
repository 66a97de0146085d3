package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisLockProviderIT extends LockProviderContract {

    private final RedisTestServer redis = TestServers.redis();

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedisLockProvider.builder(redis.uri()).listener(listener).build();
    }

    /** A provider on a Redis of its own, stopped once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        RedisTestServer own = RedisTestServer.launch();
        LockProvider provider = RedisLockProvider.builder(own.uri()).build();
        own.stop();
        return provider;
    }

    /** Replies held 800 ms behind a 200 ms command timeout. */
    @Override
    protected java.util.Optional<dev.fencing.testkit.UnclearReplies> unclearReplies() {
        return java.util.Optional.of(new ProxiedReplies(List.of(redis), 1, Duration.ofMillis(800),
                uris -> RedisLockProvider.builder(uris.get(0)).requestTimeout(Duration.ofMillis(200)).build()));
    }

    private RedisLockProvider redisProvider() {
        return (RedisLockProvider) provider;
    }

    @Test
    void lockAndTokenKeysShareOneHashTag() {
        String resource = resource("r");
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            String lockKey = redisProvider().lockKey(resource);
            String tokenKey = redisProvider().tokenKey(resource);
            assertThat(lockKey).isEqualTo("fencing:{" + resource + "}:lock");
            assertThat(tokenKey).isEqualTo("fencing:{" + resource + "}:token");
            assertThat(redis.command("GET", lockKey)).isEqualTo(lease.ownerId());
            assertThat(redis.command("GET", tokenKey)).isEqualTo(Long.toString(lease.token().value()));
            assertThat(Long.parseLong((String) redis.command("PTTL", tokenKey))).as("token key idle expiry")
                    .isGreaterThan(Duration.ofDays(29).toMillis());
        }
    }

    @Test
    void aMissingCounterIsSeededFromTheServerClockSoTokensKeepIncreasing() {
        String resource = resource("r");
        long first;
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            first = lease.token().value();
        }
        assertThat(first).as("seeded from TIME in microseconds").isGreaterThan(1_600_000_000_000_000L);
        redis.command("DEL", redisProvider().tokenKey(resource)); // what a restart without persistence does
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(lease.token().value()).isGreaterThan(first);
        }
    }

    @Test
    void withoutSeedingTokensStartAtOne() {
        try (RedisLockProvider plain = RedisLockProvider.builder(redis.uri()).tokenSeeding(false)
                .tokenIdleExpiry(Duration.ZERO).build()) {
            String resource = resource("r");
            Lease first = plain.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
            first.release();
            Lease second = plain.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
            second.release();
            assertThat(first.token().value()).isEqualTo(1);
            assertThat(second.token().value()).isEqualTo(2);
            assertThat(redis.command("PTTL", plain.tokenKey(resource))).isEqualTo("-1");
        }
    }

    /**
     * A token or lock key that holds another type than a string — written there by something else —
     * fails the acquire with Redis's WRONGTYPE before the script writes anything: the key keeps its
     * value and no lock or counter appears beside it. (A provider of its own with a short command
     * timeout: the failed attempt's give-back fails on such a key too and is retried until close().)
     */
    @Test
    void aKeyOfAnotherTypeFailsTheAcquireBeforeAnythingIsWritten() {
        try (RedisLockProvider own = RedisLockProvider.builder(redis.uri()).requestTimeout(Duration.ofMillis(100))
                .build()) {
            String hashCounter = resource("counter");
            redis.command("HSET", own.tokenKey(hashCounter), "field", "value");
            assertThatThrownBy(() -> own.tryAcquire(hashCounter, LeaseOptions.ofDefaults()))
                    .isInstanceOf(dev.fencing.core.LockUnavailableException.class).hasMessageContaining("WRONGTYPE");
            assertThat(redis.command("TYPE", own.tokenKey(hashCounter))).isEqualTo("hash");
            assertThat(redis.command("EXISTS", own.lockKey(hashCounter))).isEqualTo("0");

            String listLock = resource("lock");
            redis.command("RPUSH", own.lockKey(listLock), "item");
            assertThatThrownBy(() -> own.tryAcquire(listLock, LeaseOptions.ofDefaults()))
                    .isInstanceOf(dev.fencing.core.LockUnavailableException.class).hasMessageContaining("WRONGTYPE");
            assertThat(redis.command("LRANGE", own.lockKey(listLock), "0", "-1")).isEqualTo(List.of("item"));
            assertThat(redis.command("EXISTS", own.tokenKey(listLock))).isEqualTo("0");
        }
    }

    /**
     * Eight waiters with a backoff far longer than the test: only release notices can hand them
     * the lock in time. Each holder keeps the lock until every other remaining waiter is asleep
     * again, so no woken waiter can take the lock straight after another one released it without
     * a notice of its own (which, with holders that release at once, made the count of wake-ups
     * fall short now and then although nobody waited for the backoff). Then every release but the
     * last finds sleepers: exactly one wake-up per release notice that had someone to wake.
     */
    @Test
    void everyWaiterIsHandedTheLockByAReleaseNoticeNotByBackoff() throws Exception {
        String resource = resource("r");
        int waiters = 8;
        LeaseOptions waiting = LeaseOptions.builder().ttl(Duration.ofSeconds(30)).waitTimeout(Duration.ofSeconds(60))
                .backoff(dev.fencing.core.Backoff.fixed(Duration.ofSeconds(50))).build();
        Lease first = provider.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        java.util.concurrent.atomic.AtomicInteger remaining = new java.util.concurrent.atomic.AtomicInteger(waiters);
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                done.add(pool.submit(() -> {
                    try (Lease lease = provider.acquire(resource, waiting)) {
                        int others = remaining.decrementAndGet();
                        await().atMost(Duration.ofSeconds(20)).until(() -> redisProvider().waitersFor(resource) == others);
                        return lease.token().value();
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> redisProvider().waitersFor(resource) == waiters);
            long wokenBefore = redisProvider().wakeUps();
            first.release();
            List<Long> tokens = new ArrayList<>();
            for (Future<Long> each : done) {
                tokens.add(each.get(40, TimeUnit.SECONDS)); // well before any 50 s backoff ran out
            }
            assertThat(tokens).doesNotHaveDuplicates().allSatisfy(t -> assertThat(t).isGreaterThan(first.token().value()));
            assertThat(redisProvider().wakeUps() - wokenBefore).as("wake-ups by release notice").isEqualTo(waiters);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A zero wait timeout is exactly one attempt on the server: one acquire script call and no
     * subscription to release notices, for {@code acquire} and {@code acquireAsync} alike. Counted
     * with {@code INFO commandstats} on a Redis of its own, where only the two providers below
     * send commands (the holder's lease does not auto-renew, the script is cached by the holder's
     * grant, so the waiter's attempt is one EVALSHA).
     */
    @Test
    void aZeroWaitTimeoutSendsOneAcquireScriptAndSubscribesToNothing() throws Exception {
        RedisTestServer own = RedisTestServer.launch();
        try (RedisLockProvider holder = RedisLockProvider.builder(own.uri()).build();
                RedisLockProvider waiter = RedisLockProvider.builder(own.uri()).build()) {
            String resource = resource("r");
            Lease held = holder.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofMinutes(5))).orElseThrow();
            LeaseOptions noWait = LeaseOptions.ofTtl(Duration.ofMinutes(5)).withWaitTimeout(Duration.ZERO)
                    .withBackoff(dev.fencing.core.Backoff.fixed(Duration.ofSeconds(30)));

            own.command("CONFIG", "RESETSTAT");
            assertThatThrownBy(() -> waiter.acquire(resource, noWait))
                    .isInstanceOf(dev.fencing.core.LockUnavailableException.class);
            assertThat(scriptCallsAndSubscriptions(own)).as("acquire: script calls, subscriptions")
                    .containsExactly(1L, 0L);

            own.command("CONFIG", "RESETSTAT");
            assertThatThrownBy(() -> waiter.acquireAsync(resource, noWait).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(dev.fencing.core.LockUnavailableException.class);
            assertThat(scriptCallsAndSubscriptions(own)).as("acquireAsync: script calls, subscriptions")
                    .containsExactly(1L, 0L);
            assertThat(held.isValid()).isTrue();
            held.release();
        } finally {
            own.stop();
        }
    }

    /** EVALSHA + EVAL calls, and SUBSCRIBE + PSUBSCRIBE + SSUBSCRIBE calls, since the last CONFIG RESETSTAT. */
    private static List<Long> scriptCallsAndSubscriptions(RedisTestServer server) {
        String stats = (String) server.command("INFO", "commandstats");
        return List.of(calls(stats, "evalsha") + calls(stats, "eval"),
                calls(stats, "subscribe") + calls(stats, "psubscribe") + calls(stats, "ssubscribe"));
    }

    private static long calls(String commandStats, String command) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^cmdstat_" + command + ":calls=(\\d+)")
                .matcher(commandStats);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Test
    void uncontendedCyclesSendNoReleaseNoticeToAnyone() {
        String resource = resource("r");
        try (RedisLockProvider otherProcess = RedisLockProvider.builder(redis.uri()).build()) {
            for (int i = 0; i < 20; i++) {
                provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow().release();
            }
            assertThat(redis.command("PUBSUB", "NUMSUB", "fencing:{" + resource + "}:released"))
                    .isEqualTo(List.of("fencing:{" + resource + "}:released", "0"));
            assertThat(redisProvider().releaseNotices()).isZero();
            assertThat(otherProcess.releaseNotices()).isZero();
        }
    }

    @Test
    void aWaiterSubscribesToItsResourceOnlyWhileItWaits() throws Exception {
        String resource = resource("r");
        String channel = "fencing:{" + resource + "}:released";
        LeaseOptions waiting = LeaseOptions.builder().ttl(Duration.ofSeconds(30)).waitTimeout(Duration.ofSeconds(60))
                .backoff(dev.fencing.core.Backoff.fixed(Duration.ofSeconds(50))).build();
        Lease first = provider.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (RedisLockProvider otherProcess = RedisLockProvider.builder(redis.uri()).build()) {
            Future<Long> next = pool.submit(() -> {
                try (Lease lease = otherProcess.acquire(resource, waiting)) {
                    return lease.token().value();
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> otherProcess.waitersFor(resource) == 1);
            assertThat(redis.command("PUBSUB", "NUMSUB", channel)).isEqualTo(List.of(channel, "1"));

            first.release(); // the notice, not the 50 s backoff, hands it over
            assertThat(next.get(20, TimeUnit.SECONDS)).isGreaterThan(first.token().value());
            assertThat(otherProcess.wakeUps()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> redis.command("PUBSUB", "NUMSUB", channel).equals(List.of(channel, "0")));
            assertThat(otherProcess.waitersFor(resource)).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void inspectShowsTheHolderItsRemainingTtlAndTheLastToken() {
        String resource = resource("r");
        assertThat(provider.inspect(resource)).hasValueSatisfying(state -> {
            assertThat(state.isHeld()).isFalse();
            assertThat(state.lastToken()).isEmpty();
        });
        long token;
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow()) {
            token = lease.token().value();
            var state = provider.inspect(resource).orElseThrow();
            assertThat(state.holder()).contains(lease.ownerId());
            assertThat(state.remaining()).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
            assertThat(state.lastToken()).hasValue(token);
        }
        var released = provider.inspect(resource).orElseThrow();
        assertThat(released.holder()).isEmpty();
        assertThat(released.remaining()).isZero();
        assertThat(released.lastToken()).hasValue(token);
    }

    @Test
    void resourcesThatWouldBreakTheHashTagAreRefused() {
        assertThatThrownBy(() -> provider.tryAcquire("a{b", LeaseOptions.ofDefaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hash tag");
        assertThatThrownBy(() -> RedisLockProvider.builder(redis.uri()).keyPrefix("bad prefix"))
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisLockProvider.builder(redis.uri()).tokenSeeding(false).build())
                .hasMessageContaining("tokenIdleExpiry needs tokenSeeding");
        assertThatThrownBy(() -> RedisLockProvider.builder(redis.uri()).tokenIdleExpiry(Duration.ofHours(1)))
                .hasMessageContaining("at least 8 days");
    }

    /**
     * The lease counts itself valid for {@code ttl - (ttl * driftFactor + 2 ms)} from before the
     * request, so it ends before the server's expiry even if the server's clock runs fast; the
     * same after a renewal. A frozen clock makes the arithmetic exact.
     */
    @Test
    void theLeaseValidityLeavesADriftMarginBeforeTheServerExpiry() {
        long[] now = {1_000_000_000L};
        try (RedisLockProvider frozen = RedisLockProvider.builder(redis.uri()).clock(() -> now[0])
                .driftFactor(0.05).build()) {
            String resource = resource("r");
            try (Lease lease = frozen.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10))).orElseThrow()) {
                assertThat(lease.remaining()).isEqualTo(Duration.ofMillis(10_000 - 500 - 2));
                assertThat(Long.parseLong((String) redis.command("PTTL", frozen.lockKey(resource))))
                        .as("the server keeps the whole TTL").isGreaterThan(9_502);
                now[0] += Duration.ofSeconds(9).toNanos();
                lease.renew(Duration.ofSeconds(4));
                assertThat(lease.remaining()).isEqualTo(Duration.ofMillis(4_000 - 200 - 2));
            }
            assertThatThrownBy(() -> frozen.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofMillis(2))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0.002S")
                    .hasMessageContaining("minimum of PT0.003S");
        }
    }
}
