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
import java.util.List;
import org.junit.jupiter.api.Test;

/** Redlock over five independent redis-server processes from the testkit. */
class RedlockProviderIT extends LockProviderContract {

    private final List<RedisTestServer> nodes = TestServers.redisNodes(5);

    /**
     * Five Redis servers, the test JVM and its eight contending threads share two cores here: the
     * 100 ms default node timeout (tuned for a network round trip) once saw three nodes silent under
     * that load (a CI run), and a silent majority ends an acquire as unreachable. The contract checks
     * safety and timing relative to the TTL, not how fast this host answers.
     */
    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedlockProvider.builder(nodes.stream().map(RedisTestServer::uri).toList())
                .requestTimeout(Duration.ofSeconds(1)).listener(listener).build();
    }

    /** A provider on three Redis nodes of its own, all stopped once the provider is built. */
    @Override
    protected LockProvider createUnreachableProvider() {
        List<RedisTestServer> own = List.of(RedisTestServer.launch(), RedisTestServer.launch(), RedisTestServer.launch());
        LockProvider provider = RedlockProvider.builder(own.stream().map(RedisTestServer::uri).toList()).build();
        own.forEach(RedisTestServer::stop);
        return provider;
    }

    /** Three of five nodes' replies held 600 ms behind a 100 ms node timeout: a majority silent. */
    @Override
    protected java.util.Optional<dev.fencing.testkit.UnclearReplies> unclearReplies() {
        return java.util.Optional.of(new ProxiedReplies(nodes, 3, Duration.ofMillis(600),
                uris -> RedlockProvider.builder(uris).requestTimeout(Duration.ofMillis(100)).build()));
    }

    @Test
    void aGrantHoldsTheLockOnEveryNodeAndEveryCounterAtOrAboveItsToken() {
        RedlockProvider redlock = (RedlockProvider) provider;
        String resource = resource("r");
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            // the grant returns once a majority answered; the other nodes' scripts land just after
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                long atToken = 0;
                for (RedisTestServer node : nodes) {
                    assertThat(node.command("GET", redlock.lockKey(resource))).isEqualTo(lease.ownerId());
                    long counter = Long.parseLong((String) node.command("GET", redlock.tokenKey(resource)));
                    assertThat(counter).as("no node's next INCR can fall to or below the token")
                            .isGreaterThanOrEqualTo(lease.token().value());
                    atToken += counter == lease.token().value() ? 1 : 0;
                }
                assertThat(atToken).as("nodes holding exactly the token: the majority it was taken from")
                        .isGreaterThanOrEqualTo(redlock.quorum());
            });
        }
        assertThat(redlock.quorum()).isEqualTo(3);
    }

    @Test
    void aReleaseInOneProcessWakesAWaiterInAnotherByItsNoticeNotItsBackoff() throws Exception {
        String resource = resource("r");
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        Lease first = provider.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        // a retry backoff far longer than the test: only a release notice can wake the waiter in time
        try (RedlockProvider otherProcess = RedlockProvider.builder(uris)
                .retryBackoff(dev.fencing.core.Backoff.fixed(Duration.ofSeconds(50))).build()) {
            java.util.concurrent.CompletableFuture<Long> next = otherProcess.acquireAsync(resource,
                    LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofSeconds(60)))
                    .thenApply(lease -> {
                        lease.release();
                        return lease.token().value();
                    });
            await().atMost(Duration.ofSeconds(10)).until(() -> otherProcess.waitersFor(resource) == 1
                    || next.isDone());
            assertThat(next).as("still waiting").isNotDone();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                for (RedisTestServer node : nodes) {
                    assertThat(node.command("PUBSUB", "NUMSUB", "fencing:{" + resource + "}:released"))
                            .as("subscribed on every node while it waits")
                            .isEqualTo(List.of("fencing:{" + resource + "}:released", "1"));
                }
            });

            first.release();
            assertThat(next.get(20, java.util.concurrent.TimeUnit.SECONDS)).isGreaterThan(first.token().value());
            assertThat(otherProcess.wakeUps()).isPositive();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                for (RedisTestServer node : nodes) {
                    assertThat(node.command("PUBSUB", "NUMSUB", "fencing:{" + resource + "}:released"))
                            .as("unsubscribed once it stopped waiting").isEqualTo(List.of("fencing:{" + resource + "}:released", "0"));
                }
            });
        }
    }

    @Test
    void countersOutOfStepAreRaisedToTheMaximumSoTheNextTokenIsAboveIt() {
        RedlockProvider redlock = (RedlockProvider) provider;
        String resource = resource("r");
        long first;
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            first = lease.token().value();
        }
        // counters out of step, as attempts that failed to win a majority leave them: no three
        // nodes agree, so whichever majority answers first, its maximum must be written back; the
        // leads are days of microseconds, so that the counters and not the server clocks decide
        long far = 1_000_000_000_000L;
        long[] counters = {first + far, first + far, first + far / 2, first, first};
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).command("SET", redlock.tokenKey(resource), Long.toString(counters[i]));
        }
        long raised;
        long writeBacksBefore = redlock.tokenWriteBacks();
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            raised = lease.token().value();
        }
        assertThat(redlock.tokenWriteBacks() - writeBacksBefore).as("no majority answered the maximum: written back")
                .isEqualTo(1);
        // one more than the largest counter of the majority that answered; on a busy machine an attempt that ran out
        // of validity is given back and tried again, one more each time (seen: +2)
        assertThat(raised).as("above the largest counter of the majority that answered")
                .isBetween(first + far / 2 + 1, first + far + 3);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            long atOrAbove = 0;
            for (RedisTestServer node : nodes) {
                atOrAbove += Long.parseLong((String) node.command("GET", redlock.tokenKey(resource))) >= raised ? 1 : 0;
            }
            assertThat(atOrAbove).as("nodes whose next INCR goes past the token").isEqualTo(nodes.size());
        });
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(lease.token().value()).isGreaterThan(raised);
        }
    }

    /**
     * Counters in step — seeding off, so each node answers {@code counter + 1}, not its own clock —
     * give every node the same answer: a majority already holds the token and no grant pays the
     * write-back round.
     */
    @Test
    void countersInStepNeedNoWriteBack() {
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        try (RedlockProvider unseeded = RedlockProvider.builder(uris).tokenSeeding(false).tokenIdleExpiry(Duration.ZERO)
                .requestTimeout(Duration.ofSeconds(1)).build()) {
            String resource = resource("r");
            for (long expected = 1; expected <= 3; expected++) {
                try (Lease lease = unseeded.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                    assertThat(lease.token().value()).isEqualTo(expected);
                }
            }
            assertThat(unseeded.tokenWriteBacks()).isZero();
        }
    }

    /**
     * With seeding on, every node of a round is offered the same clock reading: nodes whose clocks
     * are within the tolerance of this process's answer the same token, so no grant pays the
     * write-back round. The tolerance is 1 s here so that a loaded test machine's scheduling delay
     * between reading the clock and a node running the script cannot push a node outside it.
     */
    @Test
    void oneSeedOfferedToEveryNodeLetsSeededGrantsSkipTheWriteBack() {
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        try (RedlockProvider seeded = RedlockProvider.builder(uris).tokenClockTolerance(Duration.ofSeconds(1))
                .requestTimeout(Duration.ofSeconds(1)).build()) {
            String resource = resource("r");
            long before = serverMicros(nodes.get(0));
            long previous = 0;
            for (int i = 0; i < 5; i++) {
                try (Lease lease = seeded.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                    assertThat(lease.token().value()).isGreaterThan(previous).isGreaterThanOrEqualTo(before - 1_000_000);
                    previous = lease.token().value();
                }
            }
            assertThat(seeded.tokenWriteBacks()).as("every majority answered the same seeded token").isZero();
        }
    }

    /**
     * A process whose clock is an hour off has its seed refused by every node: each node seeds from
     * its own clock, the nodes disagree and the grant pays the write-back — tokens stay near the
     * nodes' clocks (not an hour ahead, not an hour behind) and keep increasing across processes.
     */
    @Test
    void aSeedFurtherFromTheNodesClocksThanTheToleranceIsRefusedAndTokensStillIncrease() {
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        long hour = 3_600_000_000L;
        try (RedlockProvider behind = RedlockProvider.builder(uris).requestTimeout(Duration.ofSeconds(1))
                        .wallClockMicros(() -> RedlockProvider.systemWallClockMicros() - hour).build();
                RedlockProvider ahead = RedlockProvider.builder(uris).requestTimeout(Duration.ofSeconds(1))
                        .wallClockMicros(() -> RedlockProvider.systemWallClockMicros() + hour).build();
                RedlockProvider inStep = RedlockProvider.builder(uris).requestTimeout(Duration.ofSeconds(1)).build()) {
            String resource = resource("r");
            long previous = 0;
            for (RedlockProvider process : List.of(behind, ahead, inStep, ahead, behind, inStep)) {
                long before = serverMicros(nodes.get(0));
                try (Lease lease = process.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
                    long token = lease.token().value();
                    assertThat(token).as("above the last token").isGreaterThan(previous);
                    assertThat(token).as("not the far-behind seed").isGreaterThanOrEqualTo(before);
                    assertThat(token).as("not the far-ahead seed").isLessThan(serverMicros(nodes.get(0)) + hour / 2);
                    previous = token;
                }
            }
            assertThat(ahead.tokenWriteBacks()).as("own clocks answered: the nodes disagreed").isPositive();
            assertThat(behind.tokenWriteBacks()).as("own clocks answered: the nodes disagreed").isPositive();
        }
    }

    private static long serverMicros(RedisTestServer node) {
        List<?> time = (List<?>) node.command("TIME");
        return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
    }

    @Test
    void theNodeCountMustBeOddAndAtLeastThree() {
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        assertThatThrownBy(() -> RedlockProvider.builder(uris.subList(0, 4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an odd number of independent Redis masters, 3 to 15");
        assertThatThrownBy(() -> RedlockProvider.builder(uris.subList(0, 1))).hasMessageContaining("got 1");
        assertThatThrownBy(() -> RedlockProvider.builder(uris).driftFactor(0.9)).hasMessageContaining("driftFactor");
        assertThatThrownBy(() -> RedlockProvider.builder(uris).tokenClockTolerance(Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tokenClockTolerance");
        assertThatThrownBy(() -> RedlockProvider.builder(uris).requestTimeout(java.time.Duration.ZERO))
                .hasMessageContaining("requestTimeout");
    }
}
