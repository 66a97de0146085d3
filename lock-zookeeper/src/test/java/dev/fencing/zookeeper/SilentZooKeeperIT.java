package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.SilentServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A ZooKeeper ensemble whose every member accepts TCP and never answers: {@code build()} gives up
 * within {@code connectionTimeout} (plus a slack of 1.5 s), with one message naming the servers
 * and the bound, logs no ERROR (Curator's own connection-loss traces), and a shorter setting gives
 * up sooner. Measured before: 11 s from the CLI with two Curator ERROR stack traces.
 */
@Timeout(30)
class SilentZooKeeperIT {

    private static final Duration SLACK = Duration.ofMillis(1500);

    private final SilentServer a = SilentServer.start();
    private final SilentServer b = SilentServer.start();

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void buildGivesUpWithinTheConnectionTimeoutWithOneMessage() {
        String ensemble = a.hostPort() + "," + b.hostPort();
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            PrintStream original = System.err;
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            long start = System.nanoTime();
            try {
                assertThatThrownBy(() -> ZooKeeperLockProvider.builder(ensemble).connectTimeout(bound).build())
                        .isInstanceOfSatisfying(LockUnavailableException.class, e -> assertThat(e.getMessage())
                                .startsWith("The ZooKeeper lock provider for " + ensemble + " could not start")
                                .contains("did not answer")
                                .contains("connectTimeout " + bound.toMillis() + " ms"));
            } finally {
                System.setErr(original);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("gave up after %s with connectionTimeout %s", took, bound)
                    .isBetween(bound.minusMillis(100), bound.plus(SLACK));
            assertThat(err.toString(StandardCharsets.UTF_8)).as("logged while giving up").doesNotContain("ERROR");
        }
    }
}
