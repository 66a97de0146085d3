package dev.fencing.etcd;

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
 * etcd members that accept TCP and never answer (not even the HTTP/2 handshake): {@code build()}
 * gives up within {@code requestTimeout} (plus a slack of 1.5 s), with one message naming the
 * members and the bound; a shorter setting gives up sooner. The slack covers scheduling, not class
 * loading: an untimed build goes first.
 */
@Timeout(30)
class SilentEtcdIT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    private final SilentServer a = SilentServer.start();
    private final SilentServer b = SilentServer.start();

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void buildGivesUpWithinTheRequestTimeoutWithOneMessage() {
        // untimed first: the first client of the JVM loads gRPC and Netty, seconds on a busy machine
        assertThatThrownBy(() -> EtcdLockProvider.builder("http://" + a.hostPort())
                .requestTimeout(Duration.ofSeconds(1)).build()).isInstanceOf(LockUnavailableException.class);
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> EtcdLockProvider.builder("http://" + a.hostPort(), "http://" + b.hostPort())
                    .requestTimeout(bound).build())
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.getMessage())
                            .startsWith("The etcd lock provider for ").contains(a.hostPort())
                            .contains("did not answer")
                            .contains("requestTimeout " + bound.toMillis() + " ms"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("gave up after %s with requestTimeout %s", took, bound)
                    .isBetween(bound.minusMillis(100), bound.plus(SLACK));
        }
    }
}
