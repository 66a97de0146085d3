package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.SilentServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application whose Redis accepts TCP and never answers fails to start within
 * {@code fencing.lock.redis.connect-timeout} (plus a slack for scheduling and the context itself,
 * well below Lettuce's own 60 s) with one message naming the server and the bound; a shorter setting fails sooner. Before
 * the property existed the start waited for Lettuce's 60 s handshake timeout (74 s measured for a
 * whole application).
 */
@Timeout(120)
class SilentRedisStartIT {

    /**
     * The context's own start-up on top of the bound: class loading and the first context of the JVM
     * took 1.9 s beside it on 2 busy cores (a full build with another build running), and 4.1 s
     * beside a mutation-testing run, and 10.9 s in a build of six modules at once on 2 cores (gate 50);
     * 25 s is still far from the 60 s Lettuce waited before.
     */
    private static final Duration SLACK = Duration.ofSeconds(25);

    private final SilentServer silent = SilentServer.start();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    FencingLockAutoConfiguration.class));

    @AfterEach
    void close() {
        silent.close();
    }

    @Test
    void theStartFailsWithinTheConnectTimeoutNamingTheServer() {
        for (Duration bound : List.of(Duration.ofSeconds(1), Duration.ofSeconds(3))) {
            long start = System.nanoTime();
            runner.withPropertyValues("fencing.lock.type=redis", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + silent.port(),
                    "fencing.lock.redis.connect-timeout=" + bound.toMillis() + "ms").run(context -> {
                        assertThat(context).hasFailed();
                        assertThat(messages(context.getStartupFailure()))
                                .contains("fencing.lock.type=redis: cannot use Redis " + silent.hostPort())
                                .contains("did not answer the connection handshake within connectTimeout "
                                        + bound.toMillis() + " ms");
                    });
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).as("failed after %s with connect-timeout %s", took, bound)
                    .isBetween(bound.minusMillis(100), bound.plus(SLACK));
        }
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable e = failure; e != null; e = e.getCause()) {
            all.append(e.getMessage()).append('\n');
        }
        return all.toString();
    }
}
