package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.jdbc.JdbcFence;
import dev.fencing.jdbc.JdbiFence;
import dev.fencing.spring.jdbc.TransactionalFence;
import java.util.Arrays;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * A {@link JdbcFence} bean on the application's {@link DataSource} (whose {@code inTransaction}
 * refuses to run inside a Spring-managed transaction on that DataSource, where it would commit apart
 * from the transaction's writes), a {@link TransactionalFence} bean for {@code @Transactional} code,
 * and a {@link JdbiFence} bean
 * on its {@link Jdbi}, each unless the application defines its own, on {@code fencing.jdbc.fence-table}
 * under {@code fencing.jdbc.policy}, reporting refused and committed writes to the application's
 * {@link FencingListener} beans (the Micrometer one among them). Neither touches the database when created; the fence table
 * comes from the toolkit's migrations (see {@link FencingFlywayAutoConfiguration}).
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(JdbcFence.class)
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingJdbcAutoConfiguration {

    private static final boolean SPRING_TRANSACTIONS = ClassUtils.isPresent(
            "org.springframework.jdbc.datasource.DelegatingDataSource", FencingJdbcAutoConfiguration.class.getClassLoader())
            && ClassUtils.isPresent("org.springframework.transaction.support.TransactionSynchronizationManager",
                    FencingJdbcAutoConfiguration.class.getClassLoader());

    /** The JDBC fence. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnSingleCandidate(DataSource.class)
    static class JdbcFenceConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @DependsOnDatabaseInitialization
        JdbcFence jdbcFence(DataSource dataSource, FencingProperties properties,
                ObjectProvider<FencingListener> listeners, Environment environment) {
            FencingProperties.Jdbc jdbc = properties.getJdbc();
            String table = FlywaySchema.qualify(environment, jdbc.getFenceTable(), JdbcFence.DEFAULT_TABLE);
            Policy policy = policy(jdbc.getPolicy());
            // inside a Spring-managed transaction, inTransaction would commit apart from the
            // transaction's writes: the fence's own connections are refused there
            DataSource connections = SPRING_TRANSACTIONS ? new RefusingInsideSpringTransactions(dataSource) : dataSource;
            try {
                return JdbcFence.builder(connections).table(table).policy(policy)
                        .listener(Listeners.of(listeners)).build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fencing.jdbc.fence-table = '" + jdbc.getFenceTable()
                        + "' is not allowed: " + e.getMessage(), e);
            }
        }

        /** Fails the start when a JdbcFence bean's table is missing (fencing.jdbc.check-table): see {@link FenceTableCheck}. */
        @Bean
        @ConditionalOnBooleanProperty(name = "fencing.jdbc.check-table", matchIfMissing = true)
        SmartInitializingSingleton jdbcFenceTableCheck(ObjectProvider<JdbcFence> fences, Environment environment) {
            return () -> fences.orderedStream().forEach(fence -> FenceTableCheck.run("JdbcFence bean", fence::checkTable,
                    environment));
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnClass(name = {"org.springframework.jdbc.datasource.DataSourceUtils",
                "org.springframework.transaction.support.TransactionSynchronizationManager"})
        TransactionalFence transactionalFence(DataSource dataSource, JdbcFence jdbcFence) {
            return TransactionalFence.create(dataSource, jdbcFence);
        }
    }

    /** The Jdbi fence. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({JdbiFence.class, Jdbi.class})
    @ConditionalOnSingleCandidate(Jdbi.class)
    static class JdbiFenceConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @DependsOnDatabaseInitialization
        JdbiFence jdbiFence(Jdbi jdbi, FencingProperties properties, ObjectProvider<FencingListener> listeners,
                Environment environment) {
            FencingProperties.Jdbc jdbc = properties.getJdbc();
            String table = FlywaySchema.qualify(environment, jdbc.getFenceTable(), JdbcFence.DEFAULT_TABLE);
            Policy policy = policy(jdbc.getPolicy());
            try {
                return JdbiFence.builder(jdbi).table(table).policy(policy)
                        .listener(Listeners.of(listeners)).build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fencing.jdbc.fence-table = '" + jdbc.getFenceTable()
                        + "' is not allowed: " + e.getMessage(), e);
            }
        }
    }

    /** Fails the start when a JdbiFence bean's table is missing (fencing.jdbc.check-table). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({JdbiFence.class, Jdbi.class})
    @ConditionalOnBooleanProperty(name = "fencing.jdbc.check-table", matchIfMissing = true)
    static class JdbiFenceTableCheckConfiguration {

        @Bean
        SmartInitializingSingleton jdbiFenceTableCheck(ObjectProvider<JdbiFence> fences, Environment environment) {
            return () -> fences.orderedStream().forEach(fence -> FenceTableCheck.run("JdbiFence bean", fence::checkTable,
                    environment));
        }
    }

    /**
     * The policy named {@code value}, ignoring case.
     *
     * @throws IllegalArgumentException naming the property, the value and the allowed ones
     */
    static Policy policy(String value) {
        return Arrays.stream(Policy.values())
                .filter(policy -> policy.name().equalsIgnoreCase(value == null ? "" : value.strip()))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("fencing.jdbc.policy must be monotonic or strict; got '"
                        + value + "'"));
    }
}
