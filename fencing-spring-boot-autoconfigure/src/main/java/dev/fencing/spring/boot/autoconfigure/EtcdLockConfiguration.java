package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.etcd.EtcdLockProvider;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code fencing.lock.type=etcd}: an {@link EtcdLockProvider} on {@code fencing.lock.etcd.endpoints}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(EtcdLockProvider.class)
@ConditionalOnLockType(LockType.ETCD)
class EtcdLockConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    EtcdLockProvider fencingLockProvider(FencingProperties properties, ObjectProvider<FencingListener> listeners) {
        FencingProperties.Etcd etcd = properties.getLock().getEtcd();
        List<String> endpoints = etcd.getEndpoints().stream().map(String::strip).filter(e -> !e.isEmpty()).toList();
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("fencing.lock.etcd.endpoints must be set for fencing.lock.type=etcd"
                    + " (http://host:port or https://host:port, one per member)");
        }
        EtcdLockProvider.Builder builder;
        try {
            builder = EtcdLockProvider.builder(endpoints.toArray(String[]::new));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fencing.lock.etcd.endpoints = " + endpoints + " is not allowed: "
                    + e.getMessage(), e);
        }
        PropertyChecks.apply("fencing.lock.etcd.key-prefix", etcd.getKeyPrefix(), builder::keyPrefix);
        PropertyChecks.apply("fencing.lock.etcd.request-timeout", etcd.getRequestTimeout(), builder::requestTimeout);
        try {
            return builder.listener(Listeners.of(listeners)).build();
        } catch (LockUnavailableException e) {
            throw new IllegalStateException("fencing.lock.type=etcd: " + e.getMessage(), e);
        }
    }
}
