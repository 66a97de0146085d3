package dev.fencing.spring.boot.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingToken;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.leader.Leadership;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.propagation.FencingContext;
import dev.fencing.spring.boot.autoconfigure.TestDatabases;
import dev.fencing.spring.leader.LeaderOnly;
import dev.fencing.spring.leader.LeadershipGrantedEvent;
import dev.fencing.testkit.LogLines;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * The zombie of issue 45, as two Boot instances of a worker and a fenced service run it: each worker
 * campaigns through {@code fencing.leadership.*} and calls the {@code ledger} service from a
 * {@code @Scheduled @LeaderOnly} method with the Boot-built {@code RestClient}. The leader is paused
 * inside that method (the term's token bound), its lock server link is cut past the TTL, the other
 * instance takes over and writes; when the paused leader wakes, its call is refused by the ledger —
 * and counted and logged on both sides.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LeaderOnlyZombieIT {

    /** The fenced service: one JdbcFence write per admitted call (its controller is registered as a member class). */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Ledger {
        @RestController
        static class Entries {
            private final JdbcFence fence;

            Entries(JdbcFence fence) {
                this.fence = fence;
            }

            @PostMapping("/entries")
            void add(FencingToken token) throws SQLException {
                fence.inTransaction(token, connection -> connection.createStatement()
                        .executeUpdate("UPDATE accounts SET balance = balance + 1 WHERE id = 7"));
            }
        }
    }

    /** What a worker's job saw: its calls' tokens and refusals. */
    static final class Job {
        final List<Long> sent = new CopyOnWriteArrayList<>();
        final List<Throwable> failed = new CopyOnWriteArrayList<>();
        final List<Long> elected = new CopyOnWriteArrayList<>();
    }

    /** Which call pauses (the next one on any instance once armed), and when it may go on. */
    static final class Pause {
        static final AtomicReference<CountDownLatch> ARMED = new AtomicReference<>();
        static final AtomicReference<Job> PAUSED_IN = new AtomicReference<>();
        static final AtomicReference<FencingToken> PAUSED_WITH = new AtomicReference<>();
        static final CountDownLatch RESUME = new CountDownLatch(1);
    }

    /** The worker: calls the ledger from a leader-only scheduled job. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class Worker {
        @Bean
        Job job() {
            return new Job();
        }

        @Bean
        Settle settle(RestClient.Builder builder, Job job, org.springframework.core.env.Environment environment) {
            return new Settle(builder.baseUrl(environment.getRequiredProperty("ledger.url")).build(), job);
        }

        @Bean
        Object electionsHeard(Job job) {
            return new Object() {
                @EventListener
                void on(LeadershipGrantedEvent granted) {
                    job.elected.add(granted.term().epoch().value());
                }
            };
        }
    }

    /** The scheduled job: leader-only, so the term's token rides on its calls. */
    static class Settle {
        private final RestClient ledger;
        private final Job job;

        Settle(RestClient ledger, Job job) {
            this.ledger = ledger;
            this.job = job;
        }

        @Scheduled(fixedDelay = 100)
        @LeaderOnly
        public void run() throws InterruptedException {
            FencingToken token = FencingContext.currentToken().orElseThrow();
            CountDownLatch armed = Pause.ARMED.getAndSet(null);
            if (armed != null) { // the zombie: paused mid-job with its term's token bound
                Pause.PAUSED_IN.set(job);
                Pause.PAUSED_WITH.set(token);
                armed.countDown();
                Pause.RESUME.await();
            }
            try {
                ledger.post().uri("/entries").retrieve().toBodilessEntity();
                job.sent.add(token.value());
            } catch (RuntimeException e) {
                job.failed.add(e);
            }
        }
    }

    @Test
    void aPausedLeadersCallIsRefusedCountedAndLoggedOnBothSides() throws Exception {
        RedisTestServer redis = TestServers.redis();
        String lock = "billing-" + Long.toHexString(System.nanoTime());
        List<ConfigurableApplicationContext> contexts = new ArrayList<>();
        try (PartitionProxy linkA = PartitionProxy.start(redis.host(), redis.port());
                PartitionProxy linkB = PartitionProxy.start(redis.host(), redis.port());
                LogLines log = LogLines.containing("'" + lock + "'")) {
            log.showWarningsOf(dev.fencing.core.spi.Refusals.LOGGER);
            ConfigurableApplicationContext ledger = start(Ledger.class, contexts, "--server.port=0",
                    "--spring.datasource.url=" + TestDatabases.freshPostgresUrl());
            String url = "http://127.0.0.1:" + ((WebServerApplicationContext) ledger).getWebServer().getPort();
            List<ConfigurableApplicationContext> workers = new ArrayList<>();
            for (PartitionProxy link : List.of(linkA, linkB)) {
                workers.add(start(Worker.class, contexts, "--spring.main.web-application-type=none",
                        "--ledger.url=" + url, "--spring.datasource.url=" + TestDatabases.freshPostgresUrl(),
                        "--fencing.lock.type=redis", "--spring.data.redis.host=127.0.0.1",
                        "--spring.data.redis.port=" + link.port(), "--fencing.leadership.name=" + lock,
                        "--fencing.leadership.ttl=2s", "--fencing.propagation.client.name=ledger"));
            }
            List<Job> jobs = workers.stream().map(worker -> worker.getBean(Job.class)).toList();
            await().atMost(Duration.ofSeconds(60)).until(() -> jobs.stream().anyMatch(job -> !job.sent.isEmpty()));

            CountDownLatch paused = new CountDownLatch(1);
            Pause.ARMED.set(paused);
            assertThat(paused.await(60, TimeUnit.SECONDS)).as("the leader's job paused").isTrue();
            Job zombie = Pause.PAUSED_IN.get();
            int z = jobs.indexOf(zombie);
            FencingToken stale = Pause.PAUSED_WITH.get();
            (z == 0 ? linkA : linkB).cut(); // its lease can no longer be renewed: it lapses after the TTL
            Job next = jobs.get(1 - z);
            await("the other instance leads and writes with a newer token").atMost(Duration.ofSeconds(60))
                    .until(() -> next.sent.stream().anyMatch(token -> token > stale.value()));
            assertThat(workers.get(z).getBean(Leadership.class).isLeader()).as("the paused leader's term").isFalse();

            Pause.RESUME.countDown(); // the zombie wakes and makes its call
            await().atMost(Duration.ofSeconds(30)).until(() -> !zombie.failed.isEmpty());
            assertThat(zombie.failed.get(0)).as("the zombie's call").isInstanceOf(StaleTokenException.class);
            assertThat(count(ledger, "default", "stale")).as("refusals counted by the ledger").isEqualTo(1.0);
            assertThat(count(workers.get(z), "ledger", "stale")).as("refusals counted by the zombie").isEqualTo(1.0);
            assertThat(count(workers.get(1 - z), "ledger", "stale")).as("by the healthy instance").isZero();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(log.lines())
                    .anyMatch(line -> line.contains("the service refused the call") && line.contains(lock))
                    .anyMatch(line -> !line.contains("the service refused the call") && line.contains("presented "
                            + stale.value()) && line.contains("WARN")));
            assertThat(log.lines()).as("the paused leader's loss, logged")
                    .anyMatch(line -> line.contains("Lost the leadership of '" + lock + "' (epoch " + stale.value()));
        } finally {
            Pause.RESUME.countDown();
            contexts.forEach(ConfigurableApplicationContext::close);
        }
    }

    private static ConfigurableApplicationContext start(Class<?> app, List<ConfigurableApplicationContext> started,
            String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--spring.main.banner-mode=off");
        ConfigurableApplicationContext context = new SpringApplication(app).run(all.toArray(String[]::new));
        started.add(context);
        return context;
    }

    private static double count(ConfigurableApplicationContext context, String store, String outcome) {
        var counter = context.getBean(MeterRegistry.class).find("fencing.store.writes").tag("store", store)
                .tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }
}
