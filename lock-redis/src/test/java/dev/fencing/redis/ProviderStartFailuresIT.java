package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.LockUnavailableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A provider whose server cannot be reached fails to start with a message that says so — which
 * provider, where (host and port, never the password of the URI) and why — instead of naming a
 * lock nobody asked for (it used to read "Lock '*' could not be acquired").
 */
class ProviderStartFailuresIT {

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void anUnreachableRedisNamesTheProviderAndTheAddressButNotThePassword() throws IOException {
        int port = closedPort();
        assertThatThrownBy(() -> RedisLockProvider.builder("redis://app:s3cret@127.0.0.1:" + port)
                .requestTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                    assertThat(e.resource()).isNull();
                    assertThat(e.getMessage())
                            .startsWith("The Redis lock provider for 127.0.0.1:" + port + " could not start")
                            .contains("cannot connect")
                            .doesNotContain("s3cret").doesNotContain("'*'");
                });
    }

    /** A client passed in has no address the provider can read: the name given to the builder stands for it. */
    @Test
    void aClientPassedInIsNamedAsTheBuilderWasTold() throws IOException {
        int port = closedPort();
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + port);
        try {
            assertThatThrownBy(() -> RedisLockProvider.builder(client).serverName("127.0.0.1:" + port + " (the cache)")
                    .build())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + port + " (the cache)")
                    .hasMessageNotContaining("the given RedisClient");
            assertThatThrownBy(() -> RedisLockProvider.builder(client).serverName(" "))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serverName");
            assertThatThrownBy(() -> RedisLockProvider.builder(client).serverName("a\nb"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one line");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void redlockWithoutAReachableMajorityNamesItsNodesButNotTheirPasswords() throws IOException {
        List<String> nodes = List.of("redis://:pw1@127.0.0.1:" + closedPort(), "redis://:pw2@127.0.0.1:" + closedPort(),
                "redis://:pw3@127.0.0.1:" + closedPort());
        assertThatThrownBy(() -> RedlockProvider.builder(nodes).build())
                .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                    assertThat(e.resource()).isNull();
                    assertThat(e.getMessage())
                            .startsWith("The Redlock provider for [127.0.0.1:")
                            .contains("only 0 of 3 Redis nodes answered")
                            .doesNotContain("pw1").doesNotContain("'*'");
                });
    }

    /**
     * A server that reports Redis 4.0.14 (a fake that answers Lettuce's handshake and
     * {@code INFO}) is refused on connect by both providers, naming the version found and the
     * minimum, before any lock is requested. (Lettuce 7.7 sends, per connection: HELLO 3, refused,
     * then PING, CLIENT SETINFO twice, CLIENT MAINT_NOTIFICATIONS; then the provider's INFO server.)
     */
    @Test
    void aRedisOlderThan5IsRefusedOnConnect() {
        try (FakeRedisServer old = FakeRedisServer.reportingVersion("4.0.14")) {
            assertThatThrownBy(() -> RedisLockProvider.builder(old.uri()).requestTimeout(Duration.ofSeconds(2)).build())
                    .as("commands received: %s", old.received())
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.getMessage())
                            .startsWith("The Redis lock provider for 127.0.0.1:")
                            .contains("4.0.14").contains("5.0.0"));
            assertThat(old.received()).as("what Lettuce sent").contains("INFO server");
        }
        try (FakeRedisServer a = FakeRedisServer.reportingVersion("4.0.14");
                FakeRedisServer b = FakeRedisServer.reportingVersion("4.0.14");
                FakeRedisServer c = FakeRedisServer.reportingVersion("4.0.14")) {
            assertThatThrownBy(() -> RedlockProvider.builder(List.of(a.uri(), b.uri(), c.uri())).build())
                    .as("commands received: %s", a.received())
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.getMessage())
                            .startsWith("The Redlock provider for [127.0.0.1:")
                            .contains("4.0.14").contains("5.0.0"));
        }
    }
}
