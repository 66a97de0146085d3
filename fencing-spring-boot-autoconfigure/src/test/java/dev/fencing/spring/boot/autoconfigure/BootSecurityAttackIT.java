package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.servers.RedisTestServer;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Adversarial: a {@code fencing.lock.redis.uri} whose password holds characters a URI may not hold
 * unencoded ({@code { ^ | %zz}, space) or {@code @} and {@code /}, against a real Redis with that
 * account. Whatever the start-up does, no message of the failure's chain may carry any part of the
 * password: {@code java.net.URI}'s own message repeats the whole URI, and Lettuce parses an
 * unencoded {@code @} into a host name holding the password's tail.
 */
class BootSecurityAttackIT {

    private static final String TAIL = "tail-" + UUID.randomUUID();

    private static RedisTestServer redis;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    FencingMetricsAutoConfiguration.class, FencingLockAutoConfiguration.class,
                    FencingHealthAutoConfiguration.class));

    @BeforeAll
    static void startServer() {
        redis = RedisTestServer.launch();
    }

    @AfterAll
    static void stopServer() {
        redis.stop();
    }

    /**
     * The same through {@code spring.data.redis.url} when Boot's Redis auto-configuration is absent
     * (the starter then reads {@code spring.data.redis.*} itself).
     */
    @Test
    void noPartOfASpringDataRedisUrlPasswordIsInTheStartupFailure() {
        ApplicationContextRunner withoutBootsRedis = new ApplicationContextRunner().withConfiguration(
                AutoConfigurations.of(FencingMetricsAutoConfiguration.class, FencingLockAutoConfiguration.class,
                        FencingHealthAutoConfiguration.class));
        for (String password : new String[] {"p{" + TAIL, "p^" + TAIL, "p " + TAIL, "p%zz" + TAIL, "p@" + TAIL,
                "p/" + TAIL}) {
            String url = "redis://app:" + password + "@127.0.0.1:" + redis.port();
            withoutBootsRedis.withPropertyValues("fencing.lock.type=redis", "spring.data.redis.url=" + url)
                    .run(context -> {
                        StringBuilder messages = new StringBuilder();
                        for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                            messages.append(t).append('\n');
                        }
                        assertThat(messages.toString()).as(url + " leaked part of its password").doesNotContain(TAIL);
                    });
        }
    }

    @Test
    void noPartOfTheRedisPasswordIsInTheStartupFailure() {
        for (String password : new String[] {"p{" + TAIL, "p^" + TAIL, "p " + TAIL, "p%zz" + TAIL, "p@" + TAIL,
                "p/" + TAIL}) {
            String uri = "redis://app:" + password + "@127.0.0.1:" + redis.port();
            runner.withPropertyValues("fencing.lock.type=redis", "fencing.lock.redis.uri=" + uri).run(context -> {
                StringBuilder messages = new StringBuilder();
                for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                    messages.append(t).append('\n');
                }
                assertThat(messages.toString()).as(uri + " leaked part of its password").doesNotContain(TAIL);
            });
        }
    }
}
