package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Fails the start, saying why, when {@code fencing.lock.type} is set but no lock provider came of
 * it: an unknown type, a provider module missing from the class path, no usable DataSource for
 * {@code postgres}. Imported after the provider configurations, so it sees whether one of them
 * (or the application) defined a {@link LockProvider}.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(LockTypeCheckConfiguration.LockTypeSet.class)
class LockTypeCheckConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    Object fencingLockTypeCheck(Environment environment, ConfigurableListableBeanFactory beanFactory) {
        String problem;
        IllegalArgumentException unknownType = null;
        try {
            problem = problem(environment.getProperty(LockType.PROPERTY), beanFactory);
        } catch (IllegalArgumentException unknown) {
            problem = String.valueOf(unknown.getMessage());
            unknownType = unknown;
        }
        throw new FencingStartupException(problem,
                "Fix " + LockType.PROPERTY + " as said (one of " + LockType.allowed() + ", in any case), or define your"
                        + " own LockProvider bean.", unknownType);
    }

    /** Why {@code value} gave no provider. */
    static String problem(@Nullable String value, ConfigurableListableBeanFactory beanFactory) {
        LockType type = LockType.of(value);
        if (!ClassUtils.isPresent(type.providerClass(), beanFactory.getBeanClassLoader())) {
            return LockType.PROPERTY + "=" + type.value() + " needs the module dev.fencing:" + type.module()
                    + " on the class path (class " + type.providerClass() + " not found)";
        }
        if (type == LockType.POSTGRES) {
            int dataSources = beanFactory.getBeanNamesForType(DataSource.class, false, false).length;
            if (dataSources == 0) {
                return LockType.PROPERTY + "=postgres uses the application's DataSource, and there is none:"
                        + " configure spring.datasource.url (with spring-boot-starter-jdbc)";
            }
            if (dataSources > 1) {
                return LockType.PROPERTY + "=postgres uses the application's DataSource, and there are " + dataSources
                        + " with none marked @Primary: mark the one for the locks @Primary, or define your own"
                        + " LockProvider bean";
            }
            return LockType.PROPERTY + "=postgres uses the application's DataSource, which was defined after the"
                    + " fencing auto-configuration looked for it (by a configuration ordered after"
                    + " FencingLockAutoConfiguration): define your own LockProvider bean with"
                    + " PostgresAdvisoryLockProvider.builder(dataSource)";
        }
        return LockType.PROPERTY + "=" + type.value() + " was set but no lock provider was created; start with"
                + " --debug to see the condition evaluation report";
    }

    /** Matches when {@code fencing.lock.type} has a non-blank value. */
    static final class LockTypeSet extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String value = context.getEnvironment().getProperty(LockType.PROPERTY);
            return value == null || value.isBlank()
                    ? ConditionOutcome.noMatch(LockType.PROPERTY + " is not set")
                    : ConditionOutcome.match(LockType.PROPERTY + " is '" + value + "'");
        }
    }
}
