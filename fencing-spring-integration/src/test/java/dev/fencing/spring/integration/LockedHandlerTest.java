package dev.fencing.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.core.FencedStore;
import dev.fencing.core.LockProvider;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.InMemoryLockProvider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.annotation.ServiceActivator;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A Spring Integration context: a {@code @ServiceActivator} under {@code LockRequestHandlerAdvice}
 * over a {@link FencedLockRegistry} finds its lock's token with {@link FencedLockRegistry#currentToken()}.
 */
class LockedHandlerTest {

    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class Payments {
        final FencedStore ledger = InMemoryFencedStore.create();
        final List<String> locksHeld = new ArrayList<>();

        @Bean(destroyMethod = "close")
        LockProvider locks() {
            return InMemoryLockProvider.create();
        }

        @Bean
        FencedLockRegistry lockRegistry(LockProvider locks) {
            return FencedLockRegistry.builder(locks).keyPrefix("invoice:").build();
        }

        @Bean
        LockRequestHandlerAdvice invoiceLock(FencedLockRegistry registry) {
            return new LockRequestHandlerAdvice(registry, message -> message.getHeaders().get("invoice"));
        }

        @ServiceActivator(inputChannel = "payments", adviceChain = "invoiceLock")
        public void pay(String invoice) {
            locksHeld.add(FencedLockRegistry.currentToken().toString());
            ledger.write(FencedLockRegistry.currentToken(), invoice, "paid");
        }
    }

    @Test
    void aLockedHandlerWritesWithItsLocksToken() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Payments.class)) {
            MessageChannel payments = context.getBean("payments", MessageChannel.class);
            Payments config = context.getBean(Payments.class);
            for (String invoice : List.of("7", "8", "7")) {
                payments.send(MessageBuilder.withPayload(invoice).setHeader("invoice", invoice).build());
            }
            assertThat(config.locksHeld).containsExactly("invoice:7#1", "invoice:8#1", "invoice:7#2");
            assertThat(config.ledger.read("7").orElseThrow().token()).isEqualTo(2);
            assertThat(context.getBean(FencedLockRegistry.class).obtain("7").isLocked()).isFalse();
        }
    }
}
