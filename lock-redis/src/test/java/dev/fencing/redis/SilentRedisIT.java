package dev.fencing.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.SilentServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Redis that accepts TCP and never answers (a hung server, a black-holing middlebox): both
 * providers give up within their {@code connectTimeout} — plus a slack of 1.5 s for thread
 * scheduling on a loaded 2-core machine — with one message naming the server and the bound,
 * and a shorter setting gives up sooner. Before the bound existed a provider waited for
 * Lettuce's handshake timeout of 60 s, and Redlock 5 s per node one after another.
 */
@Timeout(30)
class SilentRedisIT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    private final SilentServer a = SilentServer.start();
    private final SilentServer b = SilentServer.start();
    private final SilentServer c = SilentServer.start();

    @AfterEach
    void close() {
        a.close();
        b.close();
        c.close();
    }

    @Test
    void aProviderGivesUpWithinItsConnectTimeout() {
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> RedisLockProvider.builder("redis://127.0.0.1:" + a.port())
                    .connectTimeout(bound).build())
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.getMessage())
                            .startsWith("The Redis lock provider for " + a.hostPort() + " could not start")
                            .contains("did not answer").contains("connectTimeout " + bound.toMillis() + " ms"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("gave up after %s with connectTimeout %s", took, bound)
                    .isBetween(bound.minusMillis(100), bound.plus(SLACK));
        }
    }

    @Test
    void redlockGivesUpOnSilentNodesWithinOneConnectTimeoutNotOnePerNode() {
        List<String> nodes = List.of("redis://127.0.0.1:" + a.port(), "redis://127.0.0.1:" + b.port(),
                "redis://127.0.0.1:" + c.port());
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> RedlockProvider.builder(nodes).connectTimeout(bound).build())
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.getMessage())
                            .startsWith("The Redlock provider for [" + a.hostPort())
                            .contains("only 0 of 3 Redis nodes answered within connectTimeout "
                                    + bound.toMillis() + " ms"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("gave up after %s with connectTimeout %s", took, bound)
                    .isBetween(bound.minusMillis(100), bound.plus(SLACK));
        }
    }

    @Test
    void connectTimeoutIsCheckedBeforeAnyConnection() {
        assertThatThrownBy(() -> RedisLockProvider.builder("redis://127.0.0.1:" + a.port())
                .connectTimeout(Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connectTimeout")
                .hasMessageContaining("PT0.1S");
        assertThat(a.connections()).isZero();
    }
}
