package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

/**
 * When an application bean needs a {@link LockProvider} and none was created, says why — the
 * same messages the start-up check gives ({@code fencing.lock.type} unknown, its module missing,
 * no DataSource for {@code postgres}, or the property not set) — instead of Spring's generic
 * "required a bean of type … that could not be found", which comes first when the application's
 * bean is created before the check.
 */
final class MissingLockProviderFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
        implements Ordered {

    /** The groups under {@code fencing.lock.}: a key outside them (and not the type) is a misspelling. */
    private static final Set<String> LOCK_GROUPS = Set.of("type", "redis", "redlock", "postgres", "etcd", "zookeeper");

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
            List<String> unknown = unknownLockKeys(environment);
            description = "A bean needs a " + LockProvider.class.getName() + " and none was created: "
                    + LockType.PROPERTY + " is not set" + (unknown.isEmpty() ? "." : " (these keys are set and are no"
                    + " fencing.lock setting: " + String.join(", ", unknown) + "; did you mean " + LockType.PROPERTY
                    + "?).");
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

    /**
     * Ordered before Boot's own analyzer of a missing bean, which comes first on a packaged jar's
     * class path and would otherwise answer with its generic "required a bean … that could not be found".
     */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 2;
    }

    /** The keys set under {@code fencing.lock.} that name no setting (a misspelled {@code type}, say). */
    static List<String> unknownLockKeys(Environment environment) {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return List.of();
        }
        Set<String> unknown = new TreeSet<>();
        for (PropertySource<?> source : configurable.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    String key = name.toLowerCase(Locale.ROOT).replace('_', '.');
                    if (key.startsWith("fencing.lock.")) {
                        String group = key.substring("fencing.lock.".length()).split("[.\\[]", 2)[0];
                        if (!LOCK_GROUPS.contains(group.replace("-", ""))) {
                            unknown.add(name);
                        }
                    }
                }
            }
        }
        return List.copyOf(unknown);
    }
}
