package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * When an application bean needs a {@link LockProvider} and none was created, says why — the
 * same messages the start-up check gives ({@code fencing.lock.type} unknown, its module missing,
 * no DataSource for {@code postgres}, or the property not set) — instead of Spring's generic
 * "required a bean of type … that could not be found", which comes first when the application's
 * bean is created before the check.
 */
final class MissingLockProviderFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException> {

    private final @Nullable BeanFactory beanFactory;
    private final @Nullable Environment environment;

    MissingLockProviderFailureAnalyzer(@Nullable BeanFactory beanFactory, @Nullable Environment environment) {
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
        if (cause.getBeanType() != LockProvider.class || environment == null) {
            return null;
        }
        String type = environment.getProperty(LockType.PROPERTY);
        String description;
        String action;
        if (type == null || type.isBlank()) {
            description = "A bean needs a " + LockProvider.class.getName() + " and none was created: "
                    + LockType.PROPERTY + " is not set.";
            action = "Set " + LockType.PROPERTY + " to one of " + LockType.allowed() + " (with its module on the class"
                    + " path), or define your own LockProvider bean.";
        } else {
            String problem;
            try {
                problem = beanFactory instanceof ConfigurableListableBeanFactory listable
                        ? LockTypeCheckConfiguration.problem(type, listable)
                        : LockType.PROPERTY + "=" + LockType.of(type).value() + " was set but no lock provider was created";
            } catch (IllegalArgumentException unknown) {
                problem = unknown.getMessage();
            }
            description = "A bean needs a " + LockProvider.class.getName() + " and none was created: " + problem + ".";
            action = "Fix " + LockType.PROPERTY + " as said, or define your own LockProvider bean.";
        }
        return new FailureAnalysis(description, action, cause);
    }
}
