package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.micrometer.MicrometerFencingListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * A {@link MicrometerFencingListener} bean when the application has a Micrometer
 * {@link MeterRegistry} and fencing-micrometer is on the class path. The auto-configured lock
 * provider passes it to its builder, so its leases are measured with the {@code provider} tag
 * set to {@code fencing.lock.type} ({@code default} when unset).
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass({MicrometerFencingListener.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MicrometerFencingListener fencingMetricsListener(MeterRegistry registry, FencingProperties properties) {
        String type = properties.getLock().getType();
        String provider = type == null || type.isBlank() ? "default" : LockType.of(type).value();
        return MicrometerFencingListener.builder(registry).provider(provider).build();
    }
}
