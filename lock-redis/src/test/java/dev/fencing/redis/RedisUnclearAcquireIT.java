package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An acquire whose outcome the caller never learns — the reply comes after the command timeout,
 * or the connection drops after the script ran — must give back what the script may have taken:
 * no lock key is left for its TTL under an owner id nobody has. The replies pass through a proxy
 * that holds them back or drops the connection; the server is the shared one.
 */
class RedisUnclearAcquireIT {

    private final RedisTestServer redis = TestServers.redis();
    private final LeaseOptions longLease = LeaseOptions.ofTtl(Duration.ofSeconds(60));
    private LaggingProxy proxy;
    private RedisLockProvider provider;

    @BeforeEach
    void connectThroughAProxy() {
        proxy = LaggingProxy.start(redis.host(), redis.port());
    }

    @AfterEach
    void close() {
        if (provider != null) {
            provider.close();
        }
        proxy.close();
    }

    private RedisLockProvider provider(Duration commandTimeout) {
        provider = RedisLockProvider.builder(proxy.redisUri()).requestTimeout(commandTimeout).build();
        // one grant first, so the scripts are cached: EVALSHA then runs at once and only its reply lags
        provider.tryAcquire("unclear-warm-up-" + UUID.randomUUID(), LeaseOptions.ofDefaults()).orElseThrow().release();
        return provider;
    }

    private static String resource() {
        return "unclear-" + UUID.randomUUID();
    }

    @Test
    void anAcquireWhoseReplyCameAfterTheTimeoutLeavesNoLockBehind() {
        RedisLockProvider locks = provider(Duration.ofMillis(200));
        String resource = resource();
        proxy.lagReplies(Duration.ofMillis(800));

        assertThatThrownBy(() -> locks.tryAcquire(resource, longLease)).isInstanceOf(LockUnavailableException.class);
        assertThat(redis.command("EXISTS", locks.tokenKey(resource))).as("the acquire script ran").isEqualTo("1");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(redis.command("EXISTS", locks.lockKey(resource))).as("lock key").isEqualTo("0"));
        proxy.lagReplies(Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).ignoreException(LockUnavailableException.class)
                .until(() -> locks.tryAcquire(resource, longLease), Optional::isPresent).orElseThrow().release();
    }

    /**
     * The connection drops while the script's reply is on its way. Whatever the client then does
     * (fail the call, or send the script again once it reconnected, which the script answers
     * with the token it already took), nothing may stay locked that no lease holds.
     */
    @Test
    void anAcquireWhoseConnectionDroppedAfterTheScriptRanLeavesNoLockBehind() throws Exception {
        RedisLockProvider locks = provider(Duration.ofSeconds(3));
        String resource = resource();
        proxy.lagReplies(Duration.ofSeconds(2));
        CompletableFuture<Optional<Lease>> attempt = CompletableFuture.supplyAsync(() -> locks.tryAcquire(resource, longLease));
        await().atMost(Duration.ofSeconds(5)).until(() -> "1".equals(redis.command("EXISTS", locks.lockKey(resource))));
        proxy.dropConnections();
        proxy.lagReplies(Duration.ZERO);

        Optional<Lease> outcome;
        try {
            outcome = attempt.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(LockUnavailableException.class);
            outcome = Optional.empty();
        }
        outcome.ifPresent(Lease::release); // a lease handed out is the caller's to release
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(redis.command("EXISTS", locks.lockKey(resource))).as("lock key").isEqualTo("0"));
    }

    /**
     * An {@code acquireAsync} cancelled while its script's reply is on its way: the script took
     * the lock, then the connection drops. Whether the attempt then fails or its grant arrives
     * after the future was cancelled, the lock goes back well before its 60 s TTL — also when the
     * give-back itself meets the dropped connection.
     */
    @Test
    void aCancelledAsyncAcquireWhoseConnectionDroppedLeavesNoLockBehind() {
        RedisLockProvider locks = provider(Duration.ofSeconds(5));
        String resource = resource();
        proxy.lagReplies(Duration.ofSeconds(2));
        CompletableFuture<Lease> pending = locks.acquireAsync(resource, longLease.withWaitTimeout(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(5)).until(() -> "1".equals(redis.command("EXISTS", locks.lockKey(resource))));

        pending.cancel(true);
        proxy.dropConnections();
        proxy.lagReplies(Duration.ZERO);

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertThat(redis.command("EXISTS", locks.lockKey(resource))).as("lock key").isEqualTo("0"));
        assertThat(pending).isCancelled();
    }

    /** The same for Redlock over three nodes, each behind its own proxy. */
    @Test
    void aCancelledRedlockAsyncAcquireWhoseConnectionsDroppedLeavesNoLockBehind() {
        List<RedisTestServer> nodes = TestServers.redisNodes(3);
        List<LaggingProxy> proxies = nodes.stream().map(node -> LaggingProxy.start(node.host(), node.port())).toList();
        try (RedlockProvider locks = RedlockProvider.builder(proxies.stream().map(LaggingProxy::redisUri).toList())
                .requestTimeout(Duration.ofSeconds(5)).build()) {
            String resource = resource();
            cancelWhileTheGrantIsOnItsWay(locks, resource, nodes, proxies);
            proxies.forEach(LaggingProxy::dropConnections);
            proxies.forEach(each -> each.lagReplies(Duration.ZERO));

            awaitNoLockKey(locks, resource, nodes);
        } finally {
            proxies.forEach(LaggingProxy::close);
        }
    }

    /**
     * Warms the provider up, delays every node's replies by 2 s, starts an {@code acquireAsync},
     * waits until every node took the lock, and cancels the attempt: its grant is on its way.
     */
    private void cancelWhileTheGrantIsOnItsWay(RedlockProvider locks, String resource, List<RedisTestServer> nodes,
            List<LaggingProxy> proxies) {
        locks.tryAcquire("unclear-warm-up-" + UUID.randomUUID(), LeaseOptions.ofDefaults()).orElseThrow().release();
        proxies.forEach(each -> each.lagReplies(Duration.ofSeconds(2)));
        CompletableFuture<Lease> pending = locks.acquireAsync(resource, longLease.withWaitTimeout(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(5)).until(() -> nodes.stream()
                .allMatch(node -> "1".equals(node.command("EXISTS", locks.lockKey(resource)))));
        pending.cancel(true);
    }

    /**
     * Waits, well within the attempt's 60 s TTL, until no node holds the lock key. The waits
     * before it (the refused give-back, at most 20 s) and this one (20 s) stay under the TTL
     * together, so the key cannot vanish by expiry and pass the test for the wrong reason; they
     * are that long because a loaded machine (a parallel build) once took more than 10 s.
     */
    private static void awaitNoLockKey(RedlockProvider locks, String resource, List<RedisTestServer> nodes) {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (RedisTestServer node : nodes) {
                assertThat(node.command("EXISTS", locks.lockKey(resource))).as("lock key on " + node).isEqualTo("0");
            }
        });
    }

    /**
     * An {@code acquireAsync} cancelled while its grant is on its way: the grant arrives after the
     * cancel, so nobody will hold the lease, and the release that gives it back fails — the
     * server refuses the provider's scripts for a moment ({@code NOPERM} from an ACL, standing for
     * any passing failure: a connection down, a failover). The give-back is retried until it
     * lands, well before the 60 s TTL; a single release would leave the lock for the whole TTL.
     */
    @Test
    void aCancelledAsyncAcquireWhoseGrantWasInFlightLeavesNoLockBehind() {
        String user = "fencing-cancel-" + UUID.randomUUID();
        allowEverything(redis, user);
        try {
            provider = RedisLockProvider.builder("redis://" + user + ":pw@127.0.0.1:" + proxy.port())
                    .requestTimeout(Duration.ofSeconds(5)).build();
            RedisLockProvider locks = provider;
            locks.tryAcquire("unclear-warm-up-" + UUID.randomUUID(), LeaseOptions.ofDefaults()).orElseThrow().release();
            String resource = resource();
            proxy.lagReplies(Duration.ofSeconds(2));
            CompletableFuture<Lease> pending = locks.acquireAsync(resource, longLease.withWaitTimeout(Duration.ofSeconds(30)));
            await().atMost(Duration.ofSeconds(5)).until(() -> "1".equals(redis.command("EXISTS", locks.lockKey(resource))));

            pending.cancel(true);
            redis.command("ACL", "SETUSER", user, "-evalsha", "-eval");
            await().atMost(Duration.ofSeconds(20)).until(() -> String.valueOf(redis.command("ACL", "LOG")).contains(user));
            redis.command("ACL", "SETUSER", user, "+evalsha", "+eval");
            proxy.lagReplies(Duration.ZERO);

            await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                    assertThat(redis.command("EXISTS", locks.lockKey(resource))).as("lock key").isEqualTo("0"));
        } finally {
            redis.command("ACL", "DELUSER", user);
        }
    }

    /** The same for Redlock over three nodes, each behind its own proxy, each refusing the first release. */
    @Test
    void aCancelledRedlockAsyncAcquireWhoseGrantWasInFlightLeavesNoLockBehind() {
        String user = "fencing-cancel-" + UUID.randomUUID();
        List<RedisTestServer> nodes = TestServers.redisNodes(3);
        List<LaggingProxy> proxies = nodes.stream().map(node -> LaggingProxy.start(node.host(), node.port())).toList();
        nodes.forEach(node -> allowEverything(node, user));
        try (RedlockProvider locks = RedlockProvider.builder(proxies.stream()
                .map(each -> "redis://" + user + ":pw@127.0.0.1:" + each.port()).toList())
                .requestTimeout(Duration.ofSeconds(5)).build()) {
            String resource = resource();
            cancelWhileTheGrantIsOnItsWay(locks, resource, nodes, proxies);
            nodes.forEach(node -> node.command("ACL", "SETUSER", user, "-evalsha", "-eval"));
            await().atMost(Duration.ofSeconds(20)).until(() -> nodes.stream()
                    .allMatch(node -> String.valueOf(node.command("ACL", "LOG")).contains(user)));
            nodes.forEach(node -> node.command("ACL", "SETUSER", user, "+evalsha", "+eval"));
            proxies.forEach(each -> each.lagReplies(Duration.ZERO));

            awaitNoLockKey(locks, resource, nodes);
        } finally {
            proxies.forEach(LaggingProxy::close);
            nodes.forEach(node -> node.command("ACL", "DELUSER", user));
        }
    }

    /** A Redis user {@code user} with password {@code pw} that may run every command on every key and channel. */
    private static void allowEverything(RedisTestServer server, String user) {
        server.command("ACL", "SETUSER", user, "reset", "on", ">pw", "~*", "&*", "+@all");
    }

    /**
     * A renewal whose reply is late gives up by a third of the TTL, whatever the command timeout
     * (5 s here), so the watchdog can try again before the lease lapses; the outcome is unclear,
     * not a lost lease.
     */
    @Test
    void aRenewalWhoseReplyIsLateGivesUpByAThirdOfTheTtl() {
        RedisLockProvider locks = provider(Duration.ofSeconds(5));
        Duration ttl = Duration.ofMillis(900);
        Lease lease = locks.tryAcquire(resource(), LeaseOptions.ofTtl(ttl)).orElseThrow();
        lease.renew(ttl); // caches the renew script: only the reply of the timed renewal lags, no NOSCRIPT round
        proxy.lagReplies(Duration.ofSeconds(2));

        long started = System.nanoTime();
        assertThatThrownBy(() -> lease.renew(ttl)).isInstanceOf(LockUnavailableException.class)
                .isNotInstanceOf(dev.fencing.core.LeaseLostException.class)
                .hasMessageContaining("renew");
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

        assertThat(elapsed).as("ttl/3 = 300 ms, plus slack").isLessThan(Duration.ofMillis(600));
        assertThat(lease.remaining()).as("not marked lost").isPositive();
    }

    /** Lua numbers are doubles: a counter above 2^53 - 1 would round, so the script refuses it and takes nothing. */
    @Test
    void aCounterAtTheLimitOfExactLuaNumbersIsRefusedAndNothingIsTaken() {
        try (RedisLockProvider locks = RedisLockProvider.create(redis.uri())) {
            String resource = resource();
            redis.command("SET", locks.tokenKey(resource), "9007199254740991");
            try (Lease last = locks.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                assertThat(last.token().value()).as("2^53, exact").isEqualTo(9_007_199_254_740_992L);
            }
            assertThatThrownBy(() -> locks.tryAcquire(resource, LeaseOptions.ofDefaults()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("9007199254740992")
                    .hasMessageContaining("2^53 - 1");
            assertThat(redis.command("EXISTS", locks.lockKey(resource))).isEqualTo("0");
            assertThat(redis.command("GET", locks.tokenKey(resource))).isEqualTo("9007199254740992");

            redis.command("SET", locks.tokenKey(resource), "12abc");
            assertThatThrownBy(() -> locks.tryAcquire(resource, LeaseOptions.ofDefaults()))
                    .hasMessageContaining("not a number");
            assertThat(redis.command("EXISTS", locks.lockKey(resource))).isEqualTo("0");
        }
    }

    @Test
    void theServerVersionIsReadAndAcceptedOnConnect() {
        String info = (String) redis.command("INFO", "server");
        assertThat(dev.fencing.redis.internal.RedisVersion.problem(info, "test server")).as(info).isEmpty();
        try (RedisLockProvider locks = RedisLockProvider.create(redis.uri())) {
            assertThat(locks.tryAcquire(resource(), LeaseOptions.ofDefaults())).isPresent();
        }
    }
}
