package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How {@code fencing.*} values are read: every duration applies the unit its description states to a
 * bare number, and every text value and the lock type are read without surrounding blanks, the same
 * way everywhere (binding, the choice of provider). Pure binding: no server.
 */
class FencingPropertiesBindingTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(FencingProperties.class)
    static class Bound {}

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnLockType(LockType.ZOOKEEPER)
    static class ZooKeeperOnly {
        @Bean
        String zooKeeperChosen() {
            return "chosen";
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Bound.class);

    @Test
    void aBareNumberIsInTheUnitEachDurationStates() {
        runner.withPropertyValues("fencing.health.timeout=2", "fencing.lock.redis.request-timeout=3",
                "fencing.lock.redlock.request-timeout=150", "fencing.lock.etcd.request-timeout=4",
                "fencing.lock.zookeeper.session-timeout=10", "fencing.lock.zookeeper.connect-timeout=5",
                "fencing.lock.zookeeper.server-tick-time=2000").run(context -> {
                    FencingProperties properties = context.getBean(FencingProperties.class);
                    assertThat(properties.getHealth().getTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(properties.getLock().getRedis().getRequestTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(properties.getLock().getRedlock().getRequestTimeout()).isEqualTo(Duration.ofMillis(150));
                    assertThat(properties.getLock().getEtcd().getRequestTimeout()).isEqualTo(Duration.ofSeconds(4));
                    assertThat(properties.getLock().getZookeeper().getSessionTimeout()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(properties.getLock().getZookeeper().getConnectTimeout()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(properties.getLock().getZookeeper().getServerTickTime()).isEqualTo(Duration.ofSeconds(2));
                });
    }

    @Test
    void aDurationWithItsOwnUnitKeepsIt() {
        runner.withPropertyValues("fencing.health.timeout=750ms", "fencing.lock.redlock.request-timeout=1s").run(context -> {
            FencingProperties properties = context.getBean(FencingProperties.class);
            assertThat(properties.getHealth().getTimeout()).isEqualTo(Duration.ofMillis(750));
            assertThat(properties.getLock().getRedlock().getRequestTimeout()).isEqualTo(Duration.ofSeconds(1));
        });
    }

    @Test
    void textValuesAreReadWithoutSurroundingBlanks() {
        runner.withPropertyValues("fencing.lock.type=postgres ", "fencing.jdbc.policy= strict ",
                "fencing.jdbc.fence-table=fencing_fence\t", "fencing.lock.etcd.endpoints=http://a:2379 , http://b:2379",
                "fencing.lock.zookeeper.key-prefix= /locks ").run(context -> {
                    FencingProperties properties = context.getBean(FencingProperties.class);
                    assertThat(properties.getLock().getType()).isEqualTo("postgres");
                    assertThat(properties.getJdbc().getPolicy()).isEqualTo("strict");
                    assertThat(properties.getJdbc().getFenceTable()).isEqualTo("fencing_fence");
                    assertThat(properties.getLock().getEtcd().getEndpoints()).containsExactly("http://a:2379", "http://b:2379");
                    assertThat(properties.getLock().getZookeeper().getKeyPrefix()).isEqualTo("/locks");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"zookeeper", "zookeeper ", " ZooKeeper", "ZOOKEEPER\t"})
    void theProviderIsChosenWhateverTheCaseAndBlanks(String value) {
        new ApplicationContextRunner().withUserConfiguration(ZooKeeperOnly.class)
                .withPropertyValues("fencing.lock.type=" + value)
                .run(context -> assertThat(context).hasBean("zooKeeperChosen"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"etcd", "zoo keeper", "", " "})
    void anotherOrUnknownTypeDoesNotChooseIt(String value) {
        new ApplicationContextRunner().withUserConfiguration(ZooKeeperOnly.class)
                .withPropertyValues("fencing.lock.type=" + value)
                .run(context -> assertThat(context).doesNotHaveBean("zooKeeperChosen"));
    }
}
