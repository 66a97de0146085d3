package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.postgres.PostgresAdvisoryLockProvider;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * {@code fencing.lock.type=postgres}: a {@link PostgresAdvisoryLockProvider} on the application's
 * {@link DataSource}, built after the application's database initialization (its Flyway run,
 * which creates {@code fencing_token_counter} when the toolkit's migrations are added to it).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(PostgresAdvisoryLockProvider.class)
@ConditionalOnLockType(LockType.POSTGRES)
@ConditionalOnSingleCandidate(DataSource.class)
class PostgresLockConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    @DependsOnDatabaseInitialization
    PostgresAdvisoryLockProvider fencingLockProvider(DataSource dataSource, FencingProperties properties,
            ObjectProvider<FencingListener> listeners, Environment environment) {
        PostgresAdvisoryLockProvider.Builder builder = PostgresAdvisoryLockProvider.builder(dataSource);
        PropertyChecks.apply("fencing.lock.postgres.table", FlywaySchema.qualify(environment,
                properties.getLock().getPostgres().getTable(), "fencing_token_counter"), builder::table);
        try {
            return builder.listener(Listeners.of(listeners)).build();
        } catch (LockUnavailableException | IllegalStateException e) {
            throw new FencingStartupException("fencing.lock.type=postgres: cannot use the application's DataSource: "
                    + e.getMessage(), "Check spring.datasource.* and that the toolkit's migrations ran: with"
                    + " dev.fencing:migrations and spring-boot-starter-flyway on the class path they run in the"
                    + " application's Flyway (spring.flyway.enabled, fencing.flyway.enabled); the counter table is"
                    + " fencing.lock.postgres.table.", e);
        }
    }
}
