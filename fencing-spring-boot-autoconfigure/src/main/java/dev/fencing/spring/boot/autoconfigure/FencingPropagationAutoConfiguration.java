package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.propagation.spring.FencingProblemAdvice;
import dev.fencing.propagation.spring.FencingTokenArgumentResolver;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
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
 */
@AutoConfiguration
@ConditionalOnClass({FencingTokenArgumentResolver.class, WebMvcConfigurer.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public final class FencingPropagationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FencingProblemAdvice fencingProblemAdvice() {
        return new FencingProblemAdvice();
    }

    @Bean
    WebMvcConfigurer fencingTokenArguments() {
        return new WebMvcConfigurer() {
            @Override
            public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
                resolvers.add(new FencingTokenArgumentResolver());
            }
        };
    }
}
