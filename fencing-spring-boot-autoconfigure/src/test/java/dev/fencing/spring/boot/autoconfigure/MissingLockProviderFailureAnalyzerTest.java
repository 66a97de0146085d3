package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.LockProvider;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * An application bean that injects {@link LockProvider} is created before the start-up check of
 * {@code fencing.lock.type}: the start then fails with Spring's "required a bean … could not be
 * found". The analyzer (registered in spring.factories) must turn that into the check's message.
 */
class MissingLockProviderFailureAnalyzerTest {

    /** An application service that needs the lock provider. */
    @Configuration(proxyBeanMethods = false)
    static class NeedsLocks {
        @Bean
        String jobs(LockProvider locks) {
            return "jobs over " + locks;
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "fencing.lock.type=mongo | fencing.lock.type must be one of redis, postgres, redlock, etcd, zookeeper; got 'mongo'",
            "fencing.lock.type=etcd | needs the module dev.fencing:lock-etcd on the class path",
            "fencing.lock.type= | fencing.lock.type is not set"})
    void anInjectedLockProviderThatWasNotCreatedIsExplained(String setting, String expected) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencingLockAutoConfiguration.class))
                .withUserConfiguration(NeedsLocks.class)
                .withClassLoader(new FilteredClassLoader("dev.fencing.etcd"))
                .withPropertyValues(setting)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyze(context.getStartupFailure(), setting);
                    assertThat(analysis).as("the analysis of %s", context.getStartupFailure()).isNotNull();
                    assertThat(analysis.getDescription()).contains(expected);
                });
    }

    /** What the analyzers registered in spring.factories say, with the application's property and class path. */
    private static FailureAnalysis analyze(Throwable failure, String setting) {
        org.springframework.core.env.StandardEnvironment environment = new org.springframework.core.env.StandardEnvironment();
        String[] pair = setting.split("=", 2);
        environment.getPropertySources().addFirst(new org.springframework.core.env.MapPropertySource("test",
                java.util.Map.of(pair[0], pair[1])));
        org.springframework.beans.factory.support.DefaultListableBeanFactory beanFactory =
                new org.springframework.beans.factory.support.DefaultListableBeanFactory();
        beanFactory.setBeanClassLoader(new FilteredClassLoader("dev.fencing.etcd"));
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(
                MissingLockProviderFailureAnalyzerTest.class.getClassLoader()).load(FailureAnalyzer.class,
                SpringFactoriesLoader.ArgumentResolver.of(org.springframework.beans.factory.BeanFactory.class, beanFactory)
                        .and(org.springframework.core.env.Environment.class, environment),
                SpringFactoriesLoader.FailureHandler.handleMessage((message, notLoaded) -> { })); // others need classes absent here
        return analyzers.stream().filter(MissingLockProviderFailureAnalyzer.class::isInstance)
                .map(analyzer -> analyzer.analyze(failure)).filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }
}
