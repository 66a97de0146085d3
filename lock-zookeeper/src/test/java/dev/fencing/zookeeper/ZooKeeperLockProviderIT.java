package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ZooKeeperLockProviderIT extends LockProviderContract {

    private final ZooKeeperTestServer zooKeeper = TestServers.zooKeeper();

    /**
     * A lease counts as valid only as long as the ensemble surely keeps its session: with the 10 s default session
     * at most about 7.4 s, and at least 5.4 s while the session checks keep up; 2 s on a busy machine still proves
     * the renewal went past the 600 ms it replaced.
     */
    @Override
    protected Duration leftAfterARenewalTo30Seconds() {
        return Duration.ofSeconds(2);
    }

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return ZooKeeperLockProvider.builder(zooKeeper.connectString())
                .serverTickTime(ZooKeeperTestServer.TICK_TIME).listener(listener).build();
    }

    /** A provider on a ZooKeeper of its own, stopped once the provider is connected. */
    @Override
    protected LockProvider createUnreachableProvider() {
        ZooKeeperTestServer own = ZooKeeperTestServer.launch();
        // a short connection timeout keeps the unreachable attempt short; a busy machine may miss it while the
        // server still answers, so the build is tried until it connects
        LockProvider provider = await().atMost(Duration.ofSeconds(60))
                .ignoreExceptionsInstanceOf(LockUnavailableException.class).until(() -> ZooKeeperLockProvider
                        .builder(own.connectString()).connectTimeout(Duration.ofSeconds(1)).build(), built -> true);
        own.stop();
        return provider;
    }

    /**
     * The provider behind proxies that hold ZooKeeper's replies. Its client notices the silence only
     * through its read timeout (two thirds of the session timeout) and cannot reconnect while the
     * handshake replies are held too; Curator's retries of the create then end in a connection loss.
     * The session timeout is short (3 s) to keep that within seconds.
     */
    @Override
    protected Optional<UnclearReplies> unclearReplies() {
        return Optional.of(new ProxiedZooKeeper(zooKeeper.connectString(), Duration.ofSeconds(3), Duration.ofSeconds(1)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a/b", "/", ".", "..", "emoji-\uD83D\uDE00", "private-\uE000", "special-\uFFF5", "del-\u007F"})
    void namesZooKeeperCannotTakeAsOnePathElementAreRefusedNamingTheValue(String bad) {
        assertThatThrownBy(() -> provider.tryAcquire(bad, LeaseOptions.ofDefaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resource");
        assertThatThrownBy(() -> provider.inspect(bad)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBadRootIsRefusedNamingIt() {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(zooKeeper.connectString()).keyPrefix("no-slash"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'no-slash'");
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(zooKeeper.connectString()).keyPrefix("/trailing/"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/trailing/'");
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder(zooKeeper.connectString()).keyPrefix("/zookeeper"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/zookeeper'");
    }

    @Test
    void inspectShowsTheHolderAndItsTokenAndNothingOnceFree() {
        String resource = resource("r");
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            LockState state = anotherProvider().inspect(resource).orElseThrow();
            assertThat(state.holder()).contains(lease.ownerId());
            assertThat(state.lastToken()).hasValue(lease.token().value());
        }
        LockState free = provider.inspect(resource).orElseThrow();
        assertThat(free.isHeld()).isFalse();
    }
}
