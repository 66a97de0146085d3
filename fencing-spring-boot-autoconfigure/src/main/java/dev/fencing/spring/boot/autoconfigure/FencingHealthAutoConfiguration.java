package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code fencing} health indicator ({@link FencingHealthIndicator}) on the application's lock
 * provider — the auto-configured one or its own — when Boot's health module is on the class path,
 * unless {@code management.health.fencing.enabled=false}.
 */
@AutoConfiguration(after = FencingLockAutoConfiguration.class)
@ConditionalOnClass({LockProvider.class, HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnSingleCandidate(LockProvider.class)
@ConditionalOnEnabledHealthIndicator("fencing")
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "fencingHealthIndicator")
    FencingHealthIndicator fencingHealthIndicator(LockProvider provider, FencingProperties properties) {
        return new FencingHealthIndicator(provider, properties.getHealth().getResource(),
                properties.getHealth().getTimeout());
    }
}
