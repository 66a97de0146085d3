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

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return RedlockProvider.builder(nodes.stream().map(RedisTestServer::uri).toList()).listener(listener).build();
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
    void countersOutOfStepAreRaisedToTheMaximumSoTheNextTokenIsAboveIt() {
        RedlockProvider redlock = (RedlockProvider) provider;
        String resource = resource("r");
        long first;
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            first = lease.token().value();
        }
        // two nodes ahead of the rest (a minority saw grants the others missed)
        nodes.get(0).command("SET", redlock.tokenKey(resource), Long.toString(first + 1000));
        nodes.get(1).command("SET", redlock.tokenKey(resource), Long.toString(first + 1000));
        long raised;
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            raised = lease.token().value();
        }
        assertThat(raised).isEqualTo(first + 1001);
        for (RedisTestServer node : nodes) {
            assertThat(Long.parseLong((String) node.command("GET", redlock.tokenKey(resource)))).isGreaterThanOrEqualTo(raised);
        }
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(lease.token().value()).isGreaterThan(raised);
        }
    }

    @Test
    void theNodeCountMustBeOddAndAtLeastThree() {
        List<String> uris = nodes.stream().map(RedisTestServer::uri).toList();
        assertThatThrownBy(() -> RedlockProvider.builder(uris.subList(0, 4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an odd number of independent Redis masters, 3 to 15");
        assertThatThrownBy(() -> RedlockProvider.builder(uris.subList(0, 1))).hasMessageContaining("got 1");
        assertThatThrownBy(() -> RedlockProvider.builder(uris).driftFactor(0.9)).hasMessageContaining("driftFactor");
        assertThatThrownBy(() -> RedlockProvider.builder(uris).nodeTimeout(java.time.Duration.ZERO))
                .hasMessageContaining("nodeTimeout");
    }
}
