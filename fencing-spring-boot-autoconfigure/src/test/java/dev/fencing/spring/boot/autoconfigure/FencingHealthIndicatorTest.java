package dev.fencing.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.InMemoryLockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The indicator's reading of {@link LockProvider#inspect} — pure logic, so over a provider whose
 * {@code inspect} answers as each test needs; against real servers in the ITs.
 */
class FencingHealthIndicatorTest {

    /** An in-memory provider whose {@code inspect} is the given function. */
    private static LockProvider inspecting(Function<String, Optional<LockState>> inspect) {
        InMemoryLockProvider locks = InMemoryLockProvider.create();
        return new LockProvider() {
            @Override
            public Optional<Lease> tryAcquire(String resource, LeaseOptions options) {
                return locks.tryAcquire(resource, options);
            }

            @Override
            public Lease acquire(String resource, LeaseOptions options) throws InterruptedException {
                return locks.acquire(resource, options);
            }

            @Override
            public CompletableFuture<Lease> acquireAsync(String resource, LeaseOptions options) {
                return locks.acquireAsync(resource, options);
            }

            @Override
            public Optional<LockState> inspect(String resource) {
                return inspect.apply(resource);
            }

            @Override
            public void close() {
                locks.close();
            }
        };
    }

    @Test
    void upWhenTheProviderAnswers() {
        LockProvider provider = inspecting(resource -> Optional.of(new LockState(resource, Optional.empty(),
                Duration.ZERO, OptionalLong.empty())));
        try (FencingHealthIndicator indicator = new FencingHealthIndicator(provider, "probe", Duration.ofSeconds(2))) {
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("resource", "probe");
        }
    }

    @Test
    void downWithTheErrorWhenTheProviderFails() {
        LockProvider provider = inspecting(resource -> {
            throw LockUnavailableException.unreachable(resource, "connection refused", null);
        });
        try (FencingHealthIndicator indicator = new FencingHealthIndicator(provider, "probe", Duration.ofSeconds(2))) {
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(health.getDetails().get("error"))).contains("LockUnavailableException")
                    .contains("connection refused");
        }
    }

    @Test
    void downWhenTheProviderDoesNotAnswerInTime() throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        LockProvider provider = inspecting(resource -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Optional.empty();
        });
        try (FencingHealthIndicator indicator = new FencingHealthIndicator(provider, "probe", Duration.ofMillis(100))) {
            long start = System.nanoTime();
            Health health = indicator.health();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("error", "no answer within 100 ms");
        }
    }

    /**
     * The first check hangs in a call that ignores interrupts (as a JDBC read on a silent server
     * does); the server is then back. The next check must report UP, not wait behind the hung one,
     * and name the provider although its class is anonymous.
     */
    @Test
    void aHungCheckDoesNotWedgeTheNextOnes() {
        CountDownLatch serverBack = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        LockProvider provider = inspecting(resource -> {
            if (calls.incrementAndGet() == 1) {
                boolean interrupted = false;
                while (serverBack.getCount() > 0) {
                    try {
                        serverBack.await();
                    } catch (InterruptedException ignoredLikeASocketRead) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return Optional.of(new LockState(resource, Optional.empty(), Duration.ZERO, OptionalLong.empty()));
        });
        try (FencingHealthIndicator indicator = new FencingHealthIndicator(provider, "probe", Duration.ofMillis(200))) {
            Health hung = indicator.health();
            assertThat(hung.getStatus()).isEqualTo(Status.DOWN);
            assertThat(hung.getDetails()).containsEntry("error", "no answer within 200 ms");

            Health next = indicator.health();
            assertThat(next.getStatus()).as("the check after a hung one, with the server back").isEqualTo(Status.UP);
            assertThat(String.valueOf(next.getDetails().get("provider"))).as("an anonymous provider class is named")
                    .startsWith(FencingHealthIndicatorTest.class.getName() + "$");
        } finally {
            serverBack.countDown();
        }
    }

    @Test
    void unknownForAProviderThatCannotBeInspected() {
        try (InMemoryLockProvider provider = InMemoryLockProvider.create();
                FencingHealthIndicator indicator = new FencingHealthIndicator(provider, "probe", Duration.ofSeconds(1))) {
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UNKNOWN);
        }
    }

    @Test
    void aTimeoutOutOfRangeNamesTheProperty() {
        try (InMemoryLockProvider provider = InMemoryLockProvider.create()) {
            assertThatThrownBy(() -> new FencingHealthIndicator(provider, "probe", Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("fencing.health.timeout must be between PT0.001S and PT1M, got PT0S");
        }
    }
}
