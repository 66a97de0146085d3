package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/**
 * A {@link LockProvider} bean chosen by {@code fencing.lock.type} — {@code redis},
 * {@code postgres}, {@code redlock}, {@code etcd} or {@code zookeeper} — unless the application
 * defines its own. Each type needs its provider module on the class path; {@code redis} reuses the
 * application's Redis settings, {@code postgres} its {@code DataSource}. The provider connects
 * when it is built, so the application does not start while its lock server cannot be reached;
 * it is closed when the context closes. Application-defined {@code FencingListener} beans (and
 * the Micrometer one, see {@link FencingMetricsAutoConfiguration}) receive its events.
 *
 * <p>A bad setting fails the start with an {@link IllegalArgumentException} or
 * {@link IllegalStateException} naming the property, its value and what is allowed.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration"},
        after = FencingMetricsAutoConfiguration.class)
@ConditionalOnClass(LockProvider.class)
@EnableConfigurationProperties(FencingProperties.class)
@Import({SpringBootVersionCheckConfiguration.class, RedisLockConfiguration.class, PostgresLockConfiguration.class, RedlockConfiguration.class,
        EtcdLockConfiguration.class, ZooKeeperLockConfiguration.class, LockTypeCheckConfiguration.class})
public final class FencingLockAutoConfiguration {
}
