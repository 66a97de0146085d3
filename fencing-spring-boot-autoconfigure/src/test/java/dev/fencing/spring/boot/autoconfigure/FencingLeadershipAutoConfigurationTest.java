package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LockProvider;
import dev.fencing.core.leader.Leadership;
import dev.fencing.propagation.FencingContext;
import dev.fencing.spring.leader.LeaderOnly;
import dev.fencing.spring.leader.LeadershipGrantedEvent;
import dev.fencing.spring.leader.LeadershipRevokedEvent;
import dev.fencing.testkit.InMemoryLockProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code fencing.leadership.*}, {@code @LeaderOnly} and the leadership events, on the in-memory provider. */
class FencingLeadershipAutoConfigurationTest {

    private static final LockProvider SHARED = InMemoryLockProvider.create();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencingMetricsAutoConfiguration.class,
                    FencingLockAutoConfiguration.class, FencingLeadershipAutoConfiguration.class))
            .withUserConfiguration(Beans.class);

    /** What the leader-only job saw. */
    static final class Calls {
        final List<FencingToken> tokens = new CopyOnWriteArrayList<>();
        final List<Object> events = new CopyOnWriteArrayList<>();
    }

    /** A job with a leader-only method. */
    static class Job {
        private final Calls calls;

        Job(Calls calls) {
            this.calls = calls;
        }

        @LeaderOnly
        public void run() {
            calls.tokens.add(FencingContext.currentToken().orElseThrow());
        }
    }

    /** A leader-only method that would have to return something on a follower. */
    static class Answering {
        @LeaderOnly
        public int run() {
            return 1;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean(destroyMethod = "") // shared by the contexts of every test
        LockProvider locks() {
            return SHARED;
        }

        @Bean
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Calls calls() {
            return new Calls();
        }

        @Bean
        Job job(Calls calls) {
            return new Job(calls);
        }

        @Bean
        ApplicationListener<LeadershipGrantedEvent> granted(Calls calls) {
            return calls.events::add;
        }

        @Bean
        ApplicationListener<LeadershipRevokedEvent> revoked(Calls calls) {
            return calls.events::add;
        }
    }

    @AfterEach
    void noBindingLeaksToTheTestThread() {
        assertThat(FencingContext.currentToken()).isEmpty();
    }

    @Test
    void withoutANameThereIsNoLeadershipAndLeaderOnlySaysWhatIsMissing() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(Leadership.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> context.getBean(Job.class).run())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("set fencing.leadership.name");
        });
        runner.withPropertyValues("fencing.leadership.name=off", "fencing.leadership.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Leadership.class));
    }

    @Test
    void theLeaderRunsTheJobWithItsEpochBoundAFollowerSkipsIt() {
        String name = "nightly-" + Long.toHexString(System.nanoTime());
        ApplicationContextRunner named = runner.withPropertyValues("fencing.leadership.name=" + name,
                "fencing.leadership.ttl=5s");
        named.run(first -> named.run(second -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> first.getBean(Leadership.class).isLeader()
                    || second.getBean(Leadership.class).isLeader());
            var leader = first.getBean(Leadership.class).isLeader() ? first : second;
            var follower = leader == first ? second : first;
            leader.getBean(Job.class).run();
            follower.getBean(Job.class).run();
            assertThat(follower.getBean(Calls.class).tokens).as("the follower's job").isEmpty();
            assertThat(leader.getBean(Calls.class).tokens).as("the leader's job ran with its term's epoch")
                    .containsExactly(leader.getBean(Leadership.class).currentEpoch().orElseThrow());
            await().atMost(Duration.ofSeconds(10)).until(() -> !leader.getBean(Calls.class).events.isEmpty());
            assertThat(leader.getBean(Calls.class).events.get(0)).isInstanceOf(LeadershipGrantedEvent.class);
            assertThat(leader.getBean(MeterRegistry.class).get("fencing.leadership.elected")
                    .tag("leadership", name).counter().count()).isEqualTo(1.0);
        }));
    }

    @Test
    void closingTheContextStepsDownAndTellsTheApplication() {
        String name = "stepping-" + Long.toHexString(System.nanoTime());
        Calls[] seen = new Calls[1];
        runner.withPropertyValues("fencing.leadership.name=" + name).run(context -> {
            seen[0] = context.getBean(Calls.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(Leadership.class).isLeader());
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> seen[0].events.size() == 2);
        assertThat(seen[0].events.get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class,
                revoked -> assertThat(revoked.reason()).hasToString("STOPPED"));
        assertThat(SHARED.inspect(name).flatMap(state -> state.holder())).as("released at close").isEmpty();
    }

    @Test
    void aLeaderOnlyMethodThatReturnsAValueFailsTheStart() {
        runner.withBean(Answering.class).run(context -> assertThat(context).hasFailed().getFailure()
                .rootCause().hasMessageContaining("@LeaderOnly").hasMessageContaining("Answering.run returns int")
                .hasMessageContaining("make it void"));
    }
}
