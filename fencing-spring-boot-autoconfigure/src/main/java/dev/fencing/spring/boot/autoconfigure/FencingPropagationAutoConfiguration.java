package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.propagation.AllowedLocks;
import dev.fencing.propagation.spring.FencingProblemAdvice;
import dev.fencing.propagation.spring.FencingTokenArgumentResolver;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The receiving side of {@code fencing-propagation} in a Spring MVC application, when that module
 * is on the class path: handlers may take the caller's {@code FencingToken} (or
 * {@code Optional<FencingToken>}) as a parameter, and the toolkit's refusals thrown by a handler
 * (a fenced store's {@code StaleTokenException}, a malformed or missing token) are answered as
 * RFC 9457 problems that the toolkit's clients turn back into the store's exception. Nothing is
 * configured on the sending side: add {@code FencingTokenInterceptor} to the clients that call
 * fenced services, so that no lock name goes to a service that does not expect one.
 *
 * <p>{@code fencing.propagation.allowed-locks} (and {@code allowed-locks-by-path}) declare which
 * locks' tokens may fence the service: the token parameter then refuses any other lock's token
 * 409 (foreign), logged at WARN and told to the application's {@code FencingListener} beans (the
 * Micrometer one counts it as {@code fencing.store.writes{outcome=foreign}}).
 */
@AutoConfiguration(after = FencingMetricsAutoConfiguration.class)
@ConditionalOnClass({FencingTokenArgumentResolver.class, WebMvcConfigurer.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingPropagationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FencingProblemAdvice fencingProblemAdvice() {
        return new FencingProblemAdvice();
    }

    @Bean
    WebMvcConfigurer fencingTokenArguments(FencingProperties properties, ObjectProvider<FencingListener> listeners) {
        AllowedLocks allowed = allowedLocks(properties.getPropagation());
        return new WebMvcConfigurer() {
            @Override
            public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
                resolvers.add(allowed == null ? new FencingTokenArgumentResolver()
                        : new FencingTokenArgumentResolver(allowed, Listeners.of(listeners)));
            }
        };
    }

    /** The declaration the properties make; null if they make none. */
    static @Nullable AllowedLocks allowedLocks(FencingProperties.Propagation properties) {
        if (properties.getAllowedLocks().isEmpty() && properties.getAllowedLocksByPath().isEmpty()) {
            return null;
        }
        AllowedLocks.Builder builder = AllowedLocks.builder();
        try {
            properties.getAllowedLocks().forEach(builder::lock);
            for (Map.Entry<String, List<String>> path : properties.getAllowedLocksByPath().entrySet()) {
                builder.forPath(path.getKey(), path.getValue().stream().map(String::strip).toArray(String[]::new));
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fencing.propagation.allowed-locks" + (properties.getAllowedLocksByPath()
                    .isEmpty() ? "" : "(-by-path)") + ": " + e.getMessage(), e);
        }
        return builder.build();
    }
}
