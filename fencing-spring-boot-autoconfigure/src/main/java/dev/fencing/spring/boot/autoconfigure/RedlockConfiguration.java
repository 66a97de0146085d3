package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.redis.RedlockProvider;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code fencing.lock.type=redlock}: a {@link RedlockProvider} over {@code fencing.lock.redlock.uris}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(RedlockProvider.class)
@ConditionalOnLockType(LockType.REDLOCK)
class RedlockConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    RedlockProvider fencingLockProvider(FencingProperties properties, ObjectProvider<FencingListener> listeners) {
        FencingProperties.Redlock redlock = properties.getLock().getRedlock();
        List<String> uris = redlock.getUris().stream().map(String::strip).filter(uri -> !uri.isEmpty()).toList();
        RedlockProvider.Builder builder;
        try {
            builder = RedlockProvider.builder(uris);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fencing.lock.redlock.uris must list the independent Redis masters for"
                    + " fencing.lock.type=redlock (redis://host:port, an odd number from 3 to 15), got " + uris.size()
                    + ": " + e.getMessage(), e);
        }
        PropertyChecks.apply("fencing.lock.redlock.key-prefix", redlock.getKeyPrefix(), builder::keyPrefix);
        PropertyChecks.apply("fencing.lock.redlock.request-timeout", redlock.getRequestTimeout(), builder::requestTimeout);
        PropertyChecks.apply("fencing.lock.redlock.connect-timeout", redlock.getConnectTimeout(),
                builder::connectTimeout);
        try {
            return builder.listener(Listeners.of(listeners)).build();
        } catch (LockUnavailableException e) {
            throw new FencingStartupException("fencing.lock.type=redlock: " + e.getMessage(), "Start the Redis masters"
                    + " named above, or fix fencing.lock.redlock.uris: a majority of them must answer.", e);
        }
    }
}
