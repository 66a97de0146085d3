package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.spring.leader.LeaderOnlyPostProcessor;
import dev.fencing.spring.leader.SpringLeadershipEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Leader election from properties: with {@code fencing.leadership.name} set, a {@link Leadership}
 * bean on the application's {@link LockProvider} campaigning for that lock from the context's start
 * to its close, heard by the application's {@link LeadershipListener} beans, published as
 * {@code LeadershipGrantedEvent} / {@code LeadershipRevokedEvent}, counted by Micrometer when the
 * application has a registry, and logged on win and loss. {@code @LeaderOnly} methods run on the
 * leader only, with the term's epoch bound for the call ({@link LeaderOnlyPostProcessor}).
 */
@AutoConfiguration(after = {FencingLockAutoConfiguration.class, FencingMetricsAutoConfiguration.class})
@ConditionalOnClass(Leadership.class)
@EnableConfigurationProperties(FencingProperties.class)
public final class FencingLeadershipAutoConfiguration {

    /** Proxies {@code @LeaderOnly} beans; static, as a post-processor must be created before other beans. */
    @Bean
    @ConditionalOnMissingBean
    static LeaderOnlyPostProcessor leaderOnlyPostProcessor(ObjectProvider<Leadership> leaderships) {
        return new LeaderOnlyPostProcessor(() -> leaderships.orderedStream().toList());
    }

    /** The leadership of {@code fencing.leadership.name}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "fencing.leadership", name = "name")
    @ConditionalOnBooleanProperty(name = "fencing.leadership.enabled", matchIfMissing = true)
    static class LeadershipConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        Leadership fencingLeadership(LockProvider provider, FencingProperties properties,
                ObjectProvider<LeadershipListener> listeners, SpringLeadershipEvents events, ListableBeanFactory beans) {
            FencingProperties.Leadership settings = properties.getLeadership();
            String name = settings.getName();
            if (name == null || name.isBlank()) {
                throw new FencingStartupException("fencing.leadership.name is blank", "Set fencing.leadership.name to"
                        + " the lock the instances campaign for, or remove it.", null);
            }
            List<LeadershipListener> heard = new ArrayList<>();
            heard.add(events);
            ClassLoader loader = FencingLeadershipAutoConfiguration.class.getClassLoader();
            if (ClassUtils.isPresent("dev.fencing.micrometer.MicrometerLeadershipListener", loader)
                    && ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", loader)) {
                Metrics.listener(beans, name).ifPresent(heard::add);
            }
            listeners.orderedStream().filter(listener -> listener != events).forEach(heard::add);
            Leadership.Builder builder;
            try {
                builder = Leadership.builder(provider, name);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fencing.leadership.name = '" + name + "': " + e.getMessage(), e);
            }
            PropertyChecks.apply("fencing.leadership.ttl", settings.getTtl(), builder::ttl);
            return builder.listener(LeadershipListener.all(heard)).build();
        }

        /** The terms as application events; not one of the LeadershipListener beans, it is added once. */
        @Bean
        SpringLeadershipEvents fencingLeadershipEvents(ApplicationEventPublisher publisher,
                ObjectProvider<Leadership> leadership) {
            return new SpringLeadershipEvents(publisher, leadership::getObject);
        }

        /**
         * Starts the campaign with the context (after its beans exist) and steps down when it closes,
         * waiting up to 5 s for the step-down's event to reach the application's listeners.
         */
        @Bean
        SmartLifecycle fencingLeadershipLifecycle(Leadership leadership, SpringLeadershipEvents events) {
            return new SmartLifecycle() {
                private volatile boolean running;

                @Override
                public void start() {
                    leadership.start();
                    running = true;
                }

                @Override
                public void stop() {
                    leadership.stop();
                    running = false;
                    try {
                        events.awaitRevoked(java.time.Duration.ofSeconds(5));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public boolean isRunning() {
                    return running;
                }
            };
        }
    }

    /** The Micrometer listener, apart so that its classes load only when present. */
    private static final class Metrics {
        private Metrics() {}

        static java.util.Optional<LeadershipListener> listener(ListableBeanFactory beans, String name) {
            var registry = beans.getBeanProvider(io.micrometer.core.instrument.MeterRegistry.class).getIfAvailable();
            if (registry == null) {
                return java.util.Optional.empty();
            }
            String tag = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]", "-").replaceAll("^[^a-z0-9]+", "");
            tag = tag.isEmpty() ? "leadership" : tag.substring(0, Math.min(64, tag.length()));
            return java.util.Optional.of(new dev.fencing.micrometer.MicrometerLeadershipListener(registry, tag));
        }
    }
}
