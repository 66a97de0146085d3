package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * {@code fencing.lock.type=redis}: a {@link RedisLockProvider} on the application's own Redis —
 * Boot's Redis connection details when spring-boot-data-redis is present, else the
 * {@code spring.data.redis.*} properties — or on {@code fencing.lock.redis.uri}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedisLockProvider.class)
@ConditionalOnLockType(LockType.REDIS)
class RedisLockConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockProvider.class)
    FencingRedisClient fencingRedisClient(FencingProperties properties, Environment environment,
            ConfigurableListableBeanFactory beanFactory) {
        FencingProperties.Redis redis = properties.getLock().getRedis();
        // the provider's bounds, checked before the client's options take the value
        PropertyChecks.requireBetween("fencing.lock.redis.request-timeout", redis.getRequestTimeout(),
                Duration.ofMillis(10), Duration.ofMinutes(5));
        PropertyChecks.requireBetween("fencing.lock.redis.connect-timeout", redis.getConnectTimeout(),
                Duration.ofMillis(100), Duration.ofMinutes(5));
        if (redis.getUri() != null && !redis.getUri().isBlank()) {
            return FencingRedisClient.of(redis.getUri().strip(), redis.getRequestTimeout(), redis.getConnectTimeout());
        }
        RedisConnectionSettings settings = ClassUtils.isPresent(BootRedisConnectionDetails.CLASS_NAME,
                beanFactory.getBeanClassLoader())
                ? BootRedisConnectionDetails.find(beanFactory)
                        .orElseGet(() -> RedisPropertiesFallback.read(Binder.get(environment), beanFactory))
                : RedisPropertiesFallback.read(Binder.get(environment), beanFactory);
        return FencingRedisClient.of(settings, redis.getRequestTimeout(), redis.getConnectTimeout());
    }

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    RedisLockProvider fencingLockProvider(FencingRedisClient client, FencingProperties properties,
            ObjectProvider<FencingListener> listeners) {
        FencingProperties.Redis redis = properties.getLock().getRedis();
        RedisLockProvider.Builder builder = client.client() instanceof RedisClusterClient cluster
                ? RedisLockProvider.builder(cluster)
                : RedisLockProvider.builder((RedisClient) client.client());
        PropertyChecks.apply("fencing.lock.redis.key-prefix", redis.getKeyPrefix(), builder::keyPrefix);
        PropertyChecks.apply("fencing.lock.redis.request-timeout", redis.getRequestTimeout(), builder::requestTimeout);
        PropertyChecks.apply("fencing.lock.redis.connect-timeout", redis.getConnectTimeout(), builder::connectTimeout);
        builder.serverName(client.servers());
        try {
            return builder.listener(Listeners.of(listeners)).build();
        } catch (LockUnavailableException e) {
            throw new FencingStartupException("fencing.lock.type=redis: cannot use " + client.target() + ": "
                    + e.getMessage(), "Start Redis there, or point the locks at a running one: spring.data.redis.host and"
                    + " spring.data.redis.port (the application's Redis), or fencing.lock.redis.uri (a Redis for the"
                    + " locks alone).", e);
        }
    }
}
