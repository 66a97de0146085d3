package dev.fencing.cli.readme;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LockProvider;
import dev.fencing.spring.integration.FencedLock;
import dev.fencing.spring.integration.FencedLockRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.annotation.ServiceActivator;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** The Java snippets of docs/spring-integration.md, verbatim: compiled by the build, found by {@link DocsSnippetsTest}. */
@SuppressWarnings("unused")
final class SpringIntegrationSnippets {

    private SpringIntegrationSnippets() {}

    static void lockAndWrite(LockProvider locks, FencedStore ledger) {
        FencedLockRegistry registry = FencedLockRegistry.builder(locks)   // any toolkit provider
                .ttl(Duration.ofSeconds(10))                               // renewed every ttl / 3 while held
                .keyPrefix("billing:")
                .build();
        FencedLock lock = registry.obtain("invoice-7");                   // lock name "billing:invoice-7"
        lock.lock();
        try {
            ledger.write(lock.token(), "invoice-7", "paid");               // refused once a newer holder wrote
        } finally {
            lock.unlock();                                                 // throws if the lease was lost meanwhile
        }
    }

    // @Configuration
    static final class LeaderConfiguration {

        @Bean
        FencedLockRegistry lockRegistry(LockProvider locks) {
            return FencedLockRegistry.create(locks);
        }

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(FencedLockRegistry registry, ReportWriter writer) {
            return new LockRegistryLeaderInitiator(registry, writer);     // started with the context
        }
    }

    // @Component
    static class ReportWriter extends DefaultCandidate {
        private final FencedStore ledger;
        private final AtomicReference<FencingToken> term = new AtomicReference<>();

        ReportWriter(FencedStore ledger) {
            super("instance-1", "report-writer");                         // the role is the lock's key
            this.ledger = ledger;
        }

        @Override
        public void onGranted(Context ctx) {
            super.onGranted(ctx);
            term.set(FencedLockRegistry.currentToken());                 // on the thread that holds the lock
        }

        @Override
        public void onRevoked(Context ctx) {
            term.set(null);
            super.onRevoked(ctx);
        }

        void publish(String report) {                                     // on any thread, while leading
            FencingToken token = term.get();
            if (token == null) {
                throw new IllegalStateException("not leading");
            }
            ledger.write(token, "report", report);                       // refused once a newer term wrote
        }
    }

    // @Configuration
    static final class PaymentConfiguration {

        @Bean
        LockRequestHandlerAdvice invoiceLock(FencedLockRegistry registry) {
            return new LockRequestHandlerAdvice(registry, message -> message.getHeaders().get("invoice"));
        }
    }

    // @Component
    static class Payments {
        private final FencedStore ledger;

        Payments(FencedStore ledger) {
            this.ledger = ledger;
        }

        @ServiceActivator(inputChannel = "payments", adviceChain = "invoiceLock")
        void pay(String invoice) {                                        // runs on the thread that locked
            ledger.write(FencedLockRegistry.currentToken(), invoice, "paid");
        }
    }

    LockRegistryLeaderInitiator readmeLeaderElection(LockProvider locks, Candidate candidate) {
        FencedLockRegistry registry = FencedLockRegistry.create(locks);
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.start();   // candidate.onGranted: FencedLockRegistry.currentToken() is the term's epoch
        return initiator;
    }
}
