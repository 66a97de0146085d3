package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingToken;
import dev.fencing.shedlock.FencedLocks;
import dev.fencing.shedlock.FencedShedLockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * ShedLock in a real application context: with {@code shedlock-spring} on the class path and
 * {@code @EnableSchedulerLock} on the application, the auto-configured {@link FencedShedLockProvider}
 * runs each {@code @SchedulerLock} task under a lease of the toolkit's provider (Postgres advisory
 * locks on the testkit's PostgreSQL here), and the task reads its token. Two instances of the
 * application schedule the same task; no two executions share a token.
 */
class FencingShedLockIT {

    /** The tokens every execution of the task saw, across both instances. */
    static final Queue<FencingToken> TOKENS = new ConcurrentLinkedQueue<>();

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    static class App {
        @Bean
        Report report() {
            return new Report();
        }
    }

    /** A scheduled task as an application writes it. */
    static class Report {
        @Scheduled(fixedDelay = 50)
        @SchedulerLock(name = "nightly-report")
        public void run() {
            TOKENS.add(FencedLocks.currentToken());
        }
    }

    @Test
    void scheduledTasksRunUnderTheToolkitsLeasesWithTokensNeverShared() {
        String url = TestDatabases.freshPostgresUrl();
        try (ConfigurableApplicationContext first = start(url); ConfigurableApplicationContext second = start(url)) {
            for (ConfigurableApplicationContext instance : List.of(first, second)) {
                assertThat(instance.getBean(net.javacrumbs.shedlock.core.LockProvider.class))
                        .isInstanceOf(FencedShedLockProvider.class);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> TOKENS.size() >= 10);
        }
        List<FencingToken> tokens = List.copyOf(TOKENS);
        assertThat(tokens).allSatisfy(token -> assertThat(token.resource()).isEqualTo("nightly-report"));
        assertThat(tokens.stream().map(FencingToken::value)).as("one token per execution").doesNotHaveDuplicates();
    }

    private static ConfigurableApplicationContext start(String url) {
        return new SpringApplication(App.class).run(Stream.of("--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off", "--spring.datasource.url=" + url, "--fencing.lock.type=postgres")
                .toArray(String[]::new));
    }
}
