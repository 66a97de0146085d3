package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.jdbc.JdbiFence;
import dev.fencing.micrometer.MicrometerFencingListener;
import dev.fencing.migrations.FencingMigrations;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.shedlock.FencedShedLockProvider;
import dev.fencing.spring.integration.FencedLockRegistry;
import dev.fencing.testkit.InMemoryLockProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The conditions of the auto-configuration, with no server: what backs off, what a bad value
 * says, what a missing module says. Provider types against real servers are in
 * {@link FencingLockProvidersIT}.
 */
class FencingAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencingMetricsAutoConfiguration.class,
                    FencingLockAutoConfiguration.class, FencingFlywayAutoConfiguration.class,
                    FencingJdbcAutoConfiguration.class, FencingHealthAutoConfiguration.class,
                    FencingShedLockAutoConfiguration.class, FencingIntegrationAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class OwnProvider {
        @Bean
        LockProvider myLocks() {
            return InMemoryLockProvider.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneDataSource {
        @Bean
        DataSource dataSource() {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL("jdbc:postgresql://127.0.0.1:1/nowhere");   // never connected to
            return dataSource;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneJdbi {
        @Bean
        Jdbi jdbi() {
            return Jdbi.create("jdbc:postgresql://127.0.0.1:1/nowhere");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneMeterRegistry {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /** The first exception of the start's failure that is not Spring's wrapping: the one the application sees explained. */
    private static Throwable rootCause(AssertableApplicationContext context) {
        Throwable failure = context.getStartupFailure();
        assertThat(failure).as("the start should have failed").isNotNull();
        while (failure.getClass().getName().startsWith("org.springframework.") && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure;
    }

    @Test
    void withoutALockTypeThereIsNoProviderAndNoHealthIndicator() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(LockProvider.class);
            assertThat(context).doesNotHaveBean(FencingHealthIndicator.class);
        });
    }

    @Test
    void anApplicationsOwnProviderWinsOverTheType() {
        runner.withUserConfiguration(OwnProvider.class).withPropertyValues("fencing.lock.type=redis")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(LockProvider.class);
                    assertThat(context.getBean(LockProvider.class)).isInstanceOf(InMemoryLockProvider.class);
                    assertThat(context).doesNotHaveBean(FencingRedisClient.class);
                    // the health indicator serves the application's own provider too
                    assertThat(context).hasSingleBean(FencingHealthIndicator.class);
                    assertThat(context).hasBean("fencingHealthIndicator");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnShedLockProvider {
        @Bean
        net.javacrumbs.shedlock.core.LockProvider shedLockProvider() {
            return configuration -> java.util.Optional.empty();
        }
    }

    @Test
    void withShedLockThereIsAFencedShedLockProviderOverTheToolkitsProvider() {
        runner.withUserConfiguration(OwnProvider.class).run(context -> {
            assertThat(context).hasSingleBean(net.javacrumbs.shedlock.core.LockProvider.class);
            assertThat(context).hasSingleBean(FencedShedLockProvider.class);
        });
    }

    @Test
    void theFencedShedLockProviderBacksOffForTheApplicationsOwnAndWithoutShedLockSpringOrAToolkitProvider() {
        runner.withUserConfiguration(OwnProvider.class, OwnShedLockProvider.class).run(context -> {
            assertThat(context).doesNotHaveBean(FencedShedLockProvider.class);
            assertThat(context).hasSingleBean(net.javacrumbs.shedlock.core.LockProvider.class);
        });
        runner.withUserConfiguration(OwnProvider.class)
                .withClassLoader(new FilteredClassLoader("net.javacrumbs.shedlock.spring"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedShedLockProvider.class));
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedShedLockProvider.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLockRegistry {
        @Bean
        LockRegistry<?> lockRegistry() {
            return new DefaultLockRegistry();
        }
    }

    @Test
    void withSpringIntegrationThereIsAFencedLockRegistryOverTheToolkitsProvider() {
        runner.withUserConfiguration(OwnProvider.class).run(context -> {
            assertThat(context).hasSingleBean(LockRegistry.class);
            FencedLockRegistry registry = context.getBean(FencedLockRegistry.class);
            assertThat(registry.obtain("report").tryLock()).isTrue();
            assertThat(registry.obtain("report").token().resource()).isEqualTo("report");
            registry.obtain("report").unlock();
        });
    }

    @Test
    void theFencedLockRegistryBacksOffForTheApplicationsOwnAndWithoutSpringIntegrationOrAToolkitProvider() {
        runner.withUserConfiguration(OwnProvider.class, OwnLockRegistry.class).run(context -> {
            assertThat(context).doesNotHaveBean(FencedLockRegistry.class);
            assertThat(context).hasSingleBean(LockRegistry.class);
        });
        runner.withUserConfiguration(OwnProvider.class)
                .withClassLoader(new FilteredClassLoader("org.springframework.integration"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedLockRegistry.class));
        runner.withUserConfiguration(OwnProvider.class)
                .withClassLoader(new FilteredClassLoader(FencedLockRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedLockRegistry.class));
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(FencedLockRegistry.class));
    }

    @Test
    void theHealthIndicatorCanBeTurnedOff() {
        runner.withUserConfiguration(OwnProvider.class).withPropertyValues("management.health.fencing.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(FencingHealthIndicator.class));
    }

    @Test
    void anUnknownTypeListsTheAllowedOnes() {
        runner.withPropertyValues("fencing.lock.type=mongo").run(context -> assertThat(rootCause(context))
                .isInstanceOf(FencingStartupException.class)
                .hasMessage("fencing.lock.type must be one of redis, postgres, redlock, etcd, zookeeper; got 'mongo'"));
    }

    @Test
    void theTypeIgnoresCase() {
        runner.withPropertyValues("fencing.lock.type=ZooKeeper").run(context -> assertThat(rootCause(context))
                .hasMessageContaining("fencing.lock.zookeeper.connect-string must be set for fencing.lock.type=zookeeper"));
    }

    @Test
    void aTypeWhoseModuleIsMissingNamesTheModule() {
        runner.withClassLoader(new FilteredClassLoader(RedisLockProvider.class))
                .withPropertyValues("fencing.lock.type=redis")
                .run(context -> assertThat(rootCause(context)).isInstanceOf(IllegalStateException.class)
                        .hasMessage("fencing.lock.type=redis needs the module dev.fencing:lock-redis on the class path"
                                + " (class dev.fencing.redis.RedisLockProvider not found)"));
        runner.withClassLoader(new FilteredClassLoader(EtcdLockProvider.class))
                .withPropertyValues("fencing.lock.type=etcd")
                .run(context -> assertThat(rootCause(context)).hasMessageContaining("dev.fencing:lock-etcd"));
    }

    @Test
    void springBootBefore4FailsTheStartSayingSo() {
        runner.withClassLoader(new FilteredClassLoader(org.springframework.boot.EnvironmentPostProcessor.class))
                .run(context -> assertThat(rootCause(context)).isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("the fencing toolkit's auto-configuration needs Spring Boot 4.0"));
    }

    @Test
    void postgresWithoutADataSourceSaysSo() {
        runner.withPropertyValues("fencing.lock.type=postgres").run(context -> assertThat(rootCause(context))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fencing.lock.type=postgres uses the application's DataSource, and there is none"));
    }

    @Test
    void badProviderSettingsNameTheProperty() {
        runner.withPropertyValues("fencing.lock.type=redis", "fencing.lock.redis.request-timeout=0s")
                .run(context -> assertThat(rootCause(context)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("fencing.lock.redis.request-timeout must be between PT0.01S and PT5M, got PT0S"));
        runner.withPropertyValues("fencing.lock.type=redis", "fencing.lock.redis.uri=http://localhost:6379")
                .run(context -> assertThat(rootCause(context)).hasMessageContaining("fencing.lock.redis.uri"));
        runner.withPropertyValues("fencing.lock.type=redlock", "fencing.lock.redlock.uris=redis://a:1,redis://b:2")
                .run(context -> assertThat(rootCause(context)).hasMessageContaining("fencing.lock.redlock.uris")
                        .hasMessageContaining("got 2"));
        runner.withPropertyValues("fencing.lock.type=etcd")
                .run(context -> assertThat(rootCause(context))
                        .hasMessageContaining("fencing.lock.etcd.endpoints must be set for fencing.lock.type=etcd"));
        runner.withPropertyValues("fencing.lock.type=etcd", "fencing.lock.etcd.endpoints=ftp://x:1")
                .run(context -> assertThat(rootCause(context)).hasMessageContaining("fencing.lock.etcd.endpoints")
                        .hasMessageContaining("ftp://x:1"));
        runner.withPropertyValues("fencing.lock.type=zookeeper", "fencing.lock.zookeeper.connect-string=127.0.0.1:1",
                "fencing.lock.zookeeper.key-prefix=relative")
                .run(context -> assertThat(rootCause(context))
                        .hasMessageStartingWith("fencing.lock.zookeeper.key-prefix = 'relative' is not allowed: "));
    }

    @Test
    void aDurationThatIsNotOneFailsTheBinding() {
        runner.withPropertyValues("fencing.lock.type=redis", "fencing.lock.redis.request-timeout=soon")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(IllegalArgumentException.class);
                    Throwable bind = context.getStartupFailure();
                    while (bind != null && !(bind instanceof BindException)) {
                        bind = bind.getCause();
                    }
                    assertThat(bind).isNotNull().hasMessageContaining("fencing.lock.redis.request-timeout");
                });
    }

    @Test
    void fencesComeWithADataSourceOrJdbiAndBackOffForTheApplicationsOwn() {
        runner.withUserConfiguration(OneDataSource.class, OneJdbi.class).run(context -> {
            assertThat(context).hasSingleBean(JdbcFence.class);
            assertThat(context).hasSingleBean(JdbiFence.class);
        });
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(JdbcFence.class);
            assertThat(context).doesNotHaveBean(JdbiFence.class);
        });
        runner.withUserConfiguration(OneDataSource.class)
                .withBean("myFence", JdbcFence.class, () -> JdbcFence.create(new PGSimpleDataSource()))
                .run(context -> assertThat(context).hasSingleBean(JdbcFence.class).hasBean("myFence"));
    }

    @Test
    void aBadFenceSettingNamesTheProperty() {
        runner.withUserConfiguration(OneDataSource.class).withPropertyValues("fencing.jdbc.policy=lenient")
                .run(context -> assertThat(rootCause(context))
                        .hasMessage("fencing.jdbc.policy must be monotonic or strict; got 'lenient'"));
        runner.withUserConfiguration(OneDataSource.class).withPropertyValues("fencing.jdbc.fence-table=fence; drop")
                .run(context -> assertThat(rootCause(context))
                        .hasMessageStartingWith("fencing.jdbc.fence-table = 'fence; drop' is not allowed: "));
    }

    @Test
    void jdbiFenceNeedsJdbiOnTheClassPath() {
        runner.withClassLoader(new FilteredClassLoader(Jdbi.class)).withUserConfiguration(OneDataSource.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(JdbcFence.class);
                    assertThat(context).doesNotHaveBean(JdbiFence.class);
                });
    }

    @Test
    void aMeterRegistryBringsTheMetricsListenerTaggedWithTheType() {
        runner.withUserConfiguration(OwnProvider.class, OneMeterRegistry.class)
                .withPropertyValues("fencing.lock.type=postgres")
                .run(context -> {
                    assertThat(context).hasSingleBean(MicrometerFencingListener.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.find("fencing.lease.acquire").tag("provider", "postgres").meters()).isNotEmpty();
                });
        runner.withUserConfiguration(OwnProvider.class)
                .run(context -> assertThat(context).doesNotHaveBean(FencingListener.class));
        runner.withClassLoader(new FilteredClassLoader(MicrometerFencingListener.class))
                .withUserConfiguration(OwnProvider.class, OneMeterRegistry.class)
                .run(context -> assertThat(context).doesNotHaveBean(FencingListener.class));
    }

    @Test
    void theFlywayCustomizerNeedsTheMigrationsModuleAndCanBeTurnedOff() {
        runner.run(context -> assertThat(context).hasSingleBean(FencingFlywayConfigurationCustomizer.class));
        runner.withPropertyValues("fencing.flyway.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(FencingFlywayConfigurationCustomizer.class));
        runner.withClassLoader(new FilteredClassLoader(FencingMigrations.class))
                .run(context -> assertThat(context).doesNotHaveBean(FencingFlywayConfigurationCustomizer.class));
    }

    @Test
    void theCustomizerDoesNotAddALocationFlywayAlreadyScans() {
        assertThat(FencingFlywayConfigurationCustomizer.covers("classpath:db", "classpath:db/fencing/postgresql"))
                .isTrue();
        assertThat(FencingFlywayConfigurationCustomizer.covers("classpath:db/fencing/postgresql/",
                "classpath:db/fencing/postgresql")).isTrue();
        assertThat(FencingFlywayConfigurationCustomizer.covers("classpath:db/migration",
                "classpath:db/fencing/postgresql")).isFalse();
        assertThat(FencingFlywayConfigurationCustomizer.covers("classpath:d", "classpath:db/fencing/postgresql"))
                .isFalse();
    }
}
