package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import dev.fencing.spring.integration.FencedLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A {@link FencedLockRegistry} — a Spring Integration {@link LockRegistry} whose locks are leases
 * of the application's toolkit {@link LockProvider} — when {@code fencing-spring-integration} is on
 * the class path, unless the application defines a {@code LockRegistry} of its own. A
 * {@code LockRegistryLeaderInitiator} or {@code LockRequestHandlerAdvice} built on it gives the
 * leader, or the locked handler, a fencing token for a fenced store. The registry has the defaults
 * of {@link FencedLockRegistry#create}; the toolkit provider is closed by whoever created it.
 */
@AutoConfiguration(after = FencingLockAutoConfiguration.class)
@ConditionalOnClass({FencedLockRegistry.class, LockRegistry.class})
@ConditionalOnBean(LockProvider.class)
public final class FencingIntegrationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    @ConditionalOnSingleCandidate(LockProvider.class)
    FencedLockRegistry fencedLockRegistry(LockProvider locks) {
        return FencedLockRegistry.create(locks);
    }
}
