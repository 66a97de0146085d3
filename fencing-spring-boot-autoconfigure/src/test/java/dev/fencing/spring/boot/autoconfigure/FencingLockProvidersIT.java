package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.etcd.EtcdLockProvider;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import dev.fencing.redis.RedisLockProvider;
import dev.fencing.redis.RedlockProvider;
import dev.fencing.testkit.servers.RedisTestServer;
import dev.fencing.testkit.servers.TestServers;
import dev.fencing.zookeeper.ZooKeeperLockProvider;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Each {@code fencing.lock.type} against the testkit's real servers: the auto-configured bean is
 * the right provider, grants a lease with a token, reaches the server the application configured,
 * and is closed with the context.
 */
class FencingLockProvidersIT {

    private static final LeaseOptions OPTIONS = LeaseOptions.ofTtl(Duration.ofSeconds(10));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    FencingMetricsAutoConfiguration.class, FencingLockAutoConfiguration.class,
                    FencingFlywayAutoConfiguration.class, FencingJdbcAutoConfiguration.class,
                    FencingHealthAutoConfiguration.class));

    private final String resource = "boot-" + UUID.randomUUID();

    /** Acquires and releases through the context's provider, then checks the provider is closed with the context. */
    private <P extends LockProvider> P grantsAndClosesWithTheContext(ApplicationContextRunner configured,
            Class<P> type) {
        AtomicReference<P> provider = new AtomicReference<>();
        configured.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(LockProvider.class);
            provider.set(type.cast(context.getBean(LockProvider.class)));
            try (Lease lease = provider.get().acquire(resource, OPTIONS)) {
                assertThat(lease.token().resource()).isEqualTo(resource);
                assertThat(lease.token().value()).isPositive();
            }
            assertThat(context).hasSingleBean(FencingHealthIndicator.class);
        });
        assertThatThrownBy(() -> provider.get().tryAcquire(resource, OPTIONS))
                .as("the provider is closed with the context").isInstanceOf(IllegalStateException.class);
        return provider.get();
    }

    @Test
    void redisUsesTheApplicationsRedisConnectionDetails() {
        RedisTestServer redis = TestServers.redis();
        AtomicReference<String> lockKey = new AtomicReference<>();
        ApplicationContextRunner configured = runner.withPropertyValues("fencing.lock.type=redis",
                "spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                "fencing.lock.redis.key-prefix=bootit:");
        configured.run(context -> {
            assertThat(context).hasSingleBean(DataRedisConnectionDetails.class);
            RedisLockProvider locks = context.getBean(RedisLockProvider.class);
            try (Lease lease = locks.acquire(resource, OPTIONS)) {
                assertThat(lease.isValid()).isTrue();
                lockKey.set(locks.lockKey(resource));
                // the lock is on the application's Redis, under the configured prefix
                assertThat(lockKey.get()).startsWith("bootit:");
                assertThat(String.valueOf(redis.command("EXISTS", lockKey.get()))).isEqualTo("1");
            }
        });
        grantsAndClosesWithTheContext(configured, RedisLockProvider.class);
    }

    @Test
    void redisWithoutBootsRedisModuleReadsTheSpringDataRedisProperties() {
        RedisTestServer redis = TestServers.redis();
        grantsAndClosesWithTheContext(runner.withClassLoader(new FilteredClassLoader(DataRedisConnectionDetails.class))
                .withPropertyValues("fencing.lock.type=redis", "spring.data.redis.url=redis://" + redis.host() + ":"
                        + redis.port() + "/2"), RedisLockProvider.class);
    }

    @Test
    void redisCanBePointedAtAnotherServer() {
        RedisTestServer redis = TestServers.redis();
        grantsAndClosesWithTheContext(runner.withPropertyValues("fencing.lock.type=redis",
                "spring.data.redis.port=1", "fencing.lock.redis.uri=" + redis.uri()), RedisLockProvider.class);
    }

    @Test
    void anUnreachableRedisFailsTheStartNamingWhereItWasLookedFor() {
        runner.withPropertyValues("fencing.lock.type=redis", "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=1", "fencing.lock.redis.request-timeout=500ms").run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    while (failure.getClass().getName().startsWith("org.springframework.")) {
                        failure = failure.getCause();
                    }
                    assertThat(failure).isInstanceOf(IllegalStateException.class)
                            .hasMessageStartingWith("fencing.lock.type=redis: cannot use Redis 127.0.0.1:1 from the"
                                    + " application's DataRedisConnectionDetails bean");
                });
    }

    @Test
    void postgresUsesTheApplicationsDataSourceAfterItsFlywayRun() {
        grantsAndClosesWithTheContext(runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                FlywayAutoConfiguration.class)).withPropertyValues("fencing.lock.type=postgres",
                "spring.datasource.url=" + TestDatabases.freshPostgresUrl()), PostgresAdvisoryLockProvider.class);
    }

    @Test
    void redlockUsesTheConfiguredMasters() {
        String uris = TestServers.redisNodes(3).stream().map(RedisTestServer::uri).collect(Collectors.joining(","));
        RedlockProvider locks = grantsAndClosesWithTheContext(runner.withPropertyValues("fencing.lock.type=redlock",
                "fencing.lock.redlock.uris=" + uris), RedlockProvider.class);
        assertThat(locks.quorum()).isEqualTo(2);
    }

    @Test
    void etcdUsesTheConfiguredEndpoints() {
        grantsAndClosesWithTheContext(runner.withPropertyValues("fencing.lock.type=etcd",
                "fencing.lock.etcd.endpoints=" + String.join(",", TestServers.etcd().endpoints())),
                EtcdLockProvider.class);
    }

    @Test
    void zookeeperUsesTheConfiguredEnsemble() {
        grantsAndClosesWithTheContext(runner.withPropertyValues("fencing.lock.type=zookeeper",
                "fencing.lock.zookeeper.connect-string=" + TestServers.zooKeeper().connectString()),
                ZooKeeperLockProvider.class);
    }

    /** DOWN names the server by host and port as Boot's settings gave them, not "the given RedisClient". */
    @Test
    void theHealthIndicatorNamesTheRedisThatStoppedAnswering() {
        RedisTestServer redis = TestServers.redis();
        try (dev.fencing.testkit.servers.PartitionProxy link = dev.fencing.testkit.servers.PartitionProxy.start(redis.host(),
                redis.port())) {
            runner.withPropertyValues("fencing.lock.type=redis", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + link.port(), "fencing.lock.redis.request-timeout=1s",
                    "fencing.health.timeout=20s").run(context -> {
                        FencingHealthIndicator health = context.getBean(FencingHealthIndicator.class);
                        assertThat(health.health().getStatus().getCode()).isEqualTo("UP");
                        link.cut();
                        org.springframework.boot.health.contributor.Health down = health.health();
                        assertThat(down.getStatus().getCode()).isEqualTo("DOWN");
                        assertThat(down.getDetails().toString()).contains("Redis at 127.0.0.1:" + link.port())
                                .doesNotContain("the given RedisClient");
                    });
        }
    }

    @Test
    void theHealthIndicatorIsUpOnALiveServer() {
        RedisTestServer redis = TestServers.redis();
        runner.withPropertyValues("fencing.lock.type=redis", "fencing.lock.redis.uri=" + redis.uri())
                .run(context -> assertThat(context.getBean(FencingHealthIndicator.class).health().getStatus().getCode())
                        .isEqualTo("UP"));
    }
}
