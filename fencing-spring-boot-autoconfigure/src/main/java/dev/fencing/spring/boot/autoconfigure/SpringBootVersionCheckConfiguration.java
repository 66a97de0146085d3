package dev.fencing.spring.boot.autoconfigure;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Fails the start of an application on Spring Boot before 4.0, saying so. There the
 * auto-configuration would half work — found by trying Boot 3.5.7: its Flyway, health, DataSource
 * and Redis integrations name Boot 4's modules and would silently do nothing (no toolkit tables, no
 * fences, no health indicator) — which is worse than not starting. Boot 4.0 is recognised by
 * {@code org.springframework.boot.EnvironmentPostProcessor}, a class new in 4.0.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingClass("org.springframework.boot.EnvironmentPostProcessor")
class SpringBootVersionCheckConfiguration {

    @Bean
    Object fencingSpringBootVersionCheck() {
        throw new IllegalStateException("the fencing toolkit's auto-configuration needs Spring Boot 4.0; this"
                + " application runs Spring Boot " + SpringBootVersion.getVersion() + ". Remove"
                + " fencing-spring-boot-starter and build the toolkit's providers and fences as beans yourself");
    }
}
