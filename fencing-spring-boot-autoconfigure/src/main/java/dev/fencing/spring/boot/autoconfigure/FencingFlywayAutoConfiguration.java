package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.migrations.FencingMigrations;
import org.flywaydb.core.Flyway;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * The toolkit's tables in the application's own Flyway run: a
 * {@link FencingFlywayConfigurationCustomizer} when Boot's Flyway auto-configuration, Flyway and the
 * toolkit's migrations module are on the class path, unless {@code fencing.flyway.enabled=false}.
 * One history table (the application's), nothing to run before or after the application's Flyway,
 * and no {@code fencing_schema_history}.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration")
@ConditionalOnClass({FencingMigrations.class, Flyway.class, FlywayConfigurationCustomizer.class})
@ConditionalOnBooleanProperty(name = "fencing.flyway.enabled", matchIfMissing = true)
public final class FencingFlywayAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FencingFlywayConfigurationCustomizer fencingFlywayConfigurationCustomizer() {
        return new FencingFlywayConfigurationCustomizer();
    }
}
