package dev.fencing.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.redis.RedisFencedStore;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} on two "instances" of a service, each a
 * {@link FencedLockRegistry} over its own Redis client, writing through a fenced Redis store: one
 * leader at a time, the other takes over when it yields or stops, and the ex-leader's late write
 * is refused.
 */
class LeaderInitiatorIT {

    private static final RedisTestServer redis = TestServers.redis();
    private static final Duration TTL = Duration.ofMillis(1_500);

    private final String role = "leader-" + UUID.randomUUID();
    private final RedisLockProvider locksA = RedisLockProvider.create(redis.uri());
    private final RedisLockProvider locksB = RedisLockProvider.create(redis.uri());
    // a short TTL: renewed every 500 ms, so a leader finds its lease lost soon after
    private final Instance a = new Instance("a", FencedLockRegistry.builder(locksA).ttl(TTL).build());
    private final Instance b = new Instance("b", FencedLockRegistry.builder(locksB).ttl(TTL).build());
    private final RedisClient client = RedisClient.create(redis.uri());
    private final StatefulRedisConnection<String, String> connection = client.connect();
    private final FencedStore store = RedisFencedStore.create(connection, role + ":");

    /** One instance of the service: its initiator, and the token it was granted leadership with. */
    private final class Instance extends DefaultCandidate {
        final FencedLockRegistry registry;
        final LockRegistryLeaderInitiator initiator;
        final AtomicReference<@Nullable FencingToken> grantedWith = new AtomicReference<>();
        final AtomicInteger revoked = new AtomicInteger();

        Instance(String id, FencedLockRegistry registry) {
            super(id, role);
            this.registry = registry;
            this.initiator = new LockRegistryLeaderInitiator(registry, this);
            initiator.setHeartBeatMillis(200);
            // a yielding leader waits this long before it competes again, while the other is waiting
            initiator.setBusyWaitMillis(2_000);
        }

        @Override
        public void onGranted(Context ctx) {
            super.onGranted(ctx);
            // onGranted runs on the thread that holds the lock
            grantedWith.set(FencedLockRegistry.currentToken());
        }

        @Override
        public void onRevoked(Context ctx) {
            grantedWith.set(null);
            super.onRevoked(ctx);
            revoked.incrementAndGet();
        }

        boolean leads() {
            return initiator.getContext().isLeader();
        }

        /**
         * The token of the current term, as an application hands it to its workers: read on the
         * lock's thread in onGranted ({@code FencedLock.token()} answers only that thread).
         */
        FencingToken token() {
            if (!leads()) {
                throw new IllegalStateException(getId() + " does not lead");
            }
            return await().atMost(Duration.ofSeconds(10)).until(grantedWith::get, java.util.Objects::nonNull);
        }
    }

    @AfterEach
    void close() {
        a.initiator.stop();
        b.initiator.stop();
        locksA.close();
        locksB.close();
        connection.close();
        client.shutdown();
    }

    private Instance awaitOneLeader() {
        await().atMost(Duration.ofSeconds(30)).until(() -> a.leads() || b.leads());
        Instance leader = a.leads() ? a : b;
        await().during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(30))
                .until(() -> leader.leads() && !(leader == a ? b : a).leads());
        return leader;
    }

    @Test
    void oneLeaderAtATimeAndTheExLeadersWriteIsRefused() {
        a.initiator.start();
        b.initiator.start();
        Instance first = awaitOneLeader();
        Instance second = first == a ? b : a;
        FencingToken firstToken = first.token();
        store.write(firstToken, "report", "by " + first.getId());

        first.initiator.getContext().yield();
        await().atMost(Duration.ofSeconds(30)).until(second::leads);
        assertThat(awaitOneLeader()).isSameAs(second);
        FencingToken secondToken = second.token();
        assertThat(secondToken.isNewerThan(firstToken)).isTrue();
        store.write(secondToken, "report", "by " + second.getId());

        // the ex-leader, paused through the hand-over, writes late with the token it led with
        assertThatThrownBy(() -> store.write(firstToken, "report", "late, by " + first.getId()))
                .isInstanceOf(StaleTokenException.class);
        assertThat(store.read("report").orElseThrow().value()).isEqualTo("by " + second.getId());
    }

    @Test
    void theOtherTakesOverWhenTheLeaderStops() {
        a.initiator.start();
        b.initiator.start();
        Instance first = awaitOneLeader();
        Instance second = first == a ? b : a;
        FencingToken firstToken = first.token();
        first.initiator.stop();
        await().atMost(Duration.ofSeconds(30)).until(second::leads);
        assertThat(first.leads()).isFalse();
        assertThatThrownBy(first::token).isInstanceOf(IllegalStateException.class);
        assertThat(second.token().isNewerThan(firstToken)).isTrue();
    }

    @Test
    void aLeaderWhoseLeaseIsLostIsRevokedAndLeadsAgainLater() {
        a.initiator.start();
        b.initiator.start();
        Instance first = awaitOneLeader();
        Instance second = first == a ? b : a;
        FencingToken firstToken = first.token();
        store.write(firstToken, "report", "by " + first.getId());

        // the lock vanishes under the leader (a failover that lost it, an operator): the other takes it
        connection.sync().del("fencing:{" + role + "}:lock");
        await().atMost(Duration.ofSeconds(30)).until(second::leads);
        FencingToken secondToken = second.token();
        assertThat(secondToken.isNewerThan(firstToken)).isTrue();
        store.write(secondToken, "report", "by " + second.getId());
        assertThatThrownBy(() -> store.write(firstToken, "report", "late, by " + first.getId()))
                .isInstanceOf(StaleTokenException.class);
        // the ex-leader learns it at its next heartbeat after its renewal found the lease lost
        await().atMost(Duration.ofSeconds(30)).until(() -> !first.leads() && first.revoked.get() == 1);

        // its thread holds nothing: when the new leader stops, it leads again, with a newer token
        second.initiator.stop();
        await().atMost(Duration.ofSeconds(30)).until(first::leads);
        assertThat(first.token().isNewerThan(secondToken)).isTrue();

        // and when it stops, it releases the lock: the other leads again
        second.initiator.start();
        first.initiator.stop();
        await().atMost(Duration.ofSeconds(30)).until(second::leads);
    }
}
