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
 * and no {@code fencing_schema_history}. Switched off, only the toolkit's rows in that history are
 * tidied, so the next start does not fail on them.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration")
@ConditionalOnClass({FencingMigrations.class, Flyway.class, FlywayConfigurationCustomizer.class})
public final class FencingFlywayAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "fencing.flyway.enabled", matchIfMissing = true)
    FencingFlywayConfigurationCustomizer fencingFlywayConfigurationCustomizer() {
        return new FencingFlywayConfigurationCustomizer();
    }

    /**
     * With {@code fencing.flyway.enabled=false} the toolkit's script is no longer among Flyway's
     * migrations: its rows from earlier runs are removed from the history before Flyway validates,
     * so switching it off starts cleanly ({@link ToolkitHistoryCallback}).
     */
    @Bean
    @ConditionalOnBooleanProperty(name = "fencing.flyway.enabled", havingValue = false)
    FlywayConfigurationCustomizer fencingFlywayHistoryWhenSwitchedOff() {
        return configuration -> FencingFlywayConfigurationCustomizer.addCallback(configuration,
                new ToolkitHistoryCallback(false));
    }
}
