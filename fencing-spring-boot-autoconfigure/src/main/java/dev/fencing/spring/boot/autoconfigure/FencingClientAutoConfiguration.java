package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.FencingListener;
import dev.fencing.propagation.spring.FencingExchangeFilter;
import dev.fencing.propagation.spring.FencingTokenInterceptor;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The caller's side of token propagation: every {@code RestClient.Builder} (and
 * {@code WebClient.Builder}) Boot builds sends the token bound on the calling thread
 * ({@code FencingContext}, {@code @LeaderOnly}) and turns a service's refusal back into the store's
 * exception, told to {@link FencingClientListeners#forClient} of {@code fencing.propagation.client.name}
 * (counted by Micrometer under that {@code store} tag) and logged at WARN. Off with
 * {@code fencing.propagation.client.enabled=false}; {@code fencing.propagation.client.require-token=true}
 * refuses to send a request that has no token instead of sending it unfenced.
 */
@AutoConfiguration(after = FencingMetricsAutoConfiguration.class)
@ConditionalOnClass(FencingTokenInterceptor.class)
@ConditionalOnBooleanProperty(name = "fencing.propagation.client.enabled", matchIfMissing = true)
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FencingClientListeners fencingClientListeners(ObjectProvider<FencingListener> listeners, ListableBeanFactory beans,
            FencingProperties properties) {
        boolean micrometer = ClassUtils.isPresent("dev.fencing.micrometer.MicrometerFencingListener",
                FencingClientAutoConfiguration.class.getClassLoader());
        List<FencingListener> others = listeners.orderedStream()
                .filter(listener -> !micrometer || !Metrics.isCounter(listener)).toList();
        return new FencingClientListeners(others, micrometer ? Metrics.counting(beans) : null);
    }

    /** The interceptor every Boot-built RestClient gets. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RestClientCustomizer.class)
    static class RestClients {
        @Bean
        RestClientCustomizer fencingRestClientCustomizer(FencingClientListeners clients, FencingProperties properties) {
            FencingProperties.Client client = properties.getPropagation().getClient();
            FencingTokenInterceptor interceptor = FencingTokenInterceptor.fromContext()
                    .listener(clients.forClient(name(client)));
            FencingTokenInterceptor sent = client.isRequireToken() ? interceptor.requireToken() : interceptor;
            return builder -> builder.requestInterceptor(sent);
        }
    }

    /** The filter every Boot-built WebClient gets. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebClientCustomizer.class, FencingExchangeFilter.class,
            org.springframework.web.reactive.function.client.WebClient.class})
    static class WebClients {
        @Bean
        WebClientCustomizer fencingWebClientCustomizer(FencingClientListeners clients, FencingProperties properties) {
            FencingExchangeFilter filter = FencingExchangeFilter.fromContext()
                    .listener(clients.forClient(name(properties.getPropagation().getClient())));
            return builder -> builder.filter(filter);
        }
    }

    private static String name(FencingProperties.Client client) {
        try {
            FencingClientListeners.requireName(client.getName());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("fencing.propagation.client.name = '" + client.getName() + "': "
                    + e.getMessage(), e);
        }
        return client.getName();
    }

    /** Micrometer's part, apart so that its classes load only when present. */
    private static final class Metrics {
        private Metrics() {}

        static boolean isCounter(FencingListener listener) {
            return listener instanceof dev.fencing.micrometer.MicrometerFencingListener;
        }

        static @Nullable Function<String, FencingListener> counting(ListableBeanFactory beans) {
            var registry = beans.getBeanProvider(io.micrometer.core.instrument.MeterRegistry.class).getIfAvailable();
            if (registry == null) {
                return null;
            }
            return name -> dev.fencing.micrometer.MicrometerFencingListener.builder(registry).store(name).build();
        }
    }
}
