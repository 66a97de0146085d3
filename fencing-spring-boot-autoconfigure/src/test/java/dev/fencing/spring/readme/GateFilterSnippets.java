package dev.fencing.spring.readme;

import dev.fencing.jdbc.JdbcFence;
import dev.fencing.propagation.JdbcTokenGate;
import dev.fencing.propagation.servlet.FencingTokenFilter;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The gate filter snippet of docs/propagation.md (registering it in Spring Boot), verbatim: compiled
 * by this module's build, found in the docs by the CLI module's {@code DocsSnippetsTest}.
 */
@SuppressWarnings("unused")
final class GateFilterSnippets {

    private GateFilterSnippets() {}

    // @Configuration
    static class LedgerGate {
        @Bean
        FilterRegistrationBean<FencingTokenFilter> fencingGate(JdbcFence jdbcFence) { // the auto-configured fence
            FencingTokenFilter filter = FencingTokenFilter.builder()
                    .requireToken()                                    // no token: 428
                    .gate(JdbcTokenGate.over(jdbcFence))               // older than the fence row's mark: 409
                    .build();
            FilterRegistrationBean<FencingTokenFilter> registration = new FilterRegistrationBean<>(filter);
            registration.addUrlPatterns("/entries/*");
            return registration;
        }
    }
}
