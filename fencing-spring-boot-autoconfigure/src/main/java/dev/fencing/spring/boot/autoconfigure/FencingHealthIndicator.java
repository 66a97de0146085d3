package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import dev.fencing.core.LockState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code fencing} health indicator: asks the lock provider what it holds for one fixed
 * resource ({@link LockProvider#inspect}, one read, nothing locked) and reports
 * <ul>
 *   <li>UP when the provider answered within the timeout, with the provider's class;
 *   <li>DOWN with the error when it failed, or with the timeout when it did not answer in time
 *       (the question runs on this indicator's own thread, so a hung server never holds up the
 *       caller of the health endpoint; a later check waits behind a hung one and reports DOWN too);
 *   <li>UNKNOWN for a provider that cannot be inspected (Redlock), with the reason.
 * </ul>
 * Thread-safe. Closed with the context (its thread ends).
 */
public final class FencingHealthIndicator implements HealthIndicator, AutoCloseable {

    private final LockProvider provider;
    private final String resource;
    private final Duration timeout;
    private final ExecutorService asker = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "fencing-health");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * An indicator asking {@code provider} about {@code resource}, waiting up to {@code timeout}.
     *
     * @throws IllegalArgumentException naming the property if {@code timeout} is not between 1 ms and 1 min
     */
    public FencingHealthIndicator(LockProvider provider, String resource, Duration timeout) {
        this.provider = provider;
        this.resource = resource;
        this.timeout = PropertyChecks.requireBetween("fencing.health.timeout", timeout, Duration.ofMillis(1),
                Duration.ofMinutes(1));
    }

    @Override
    public Health health() {
        String providerName = provider.getClass().getSimpleName();
        CompletableFuture<Optional<LockState>> answer;
        try {
            answer = CompletableFuture.supplyAsync(() -> provider.inspect(resource), asker);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return Health.down().withDetail("provider", providerName).withDetail("error", "closed").build();
        }
        try {
            Optional<LockState> state = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (state.isEmpty()) {
                return Health.unknown().withDetail("provider", providerName)
                        .withDetail("reason", "this provider cannot be inspected").build();
            }
            return Health.up().withDetail("provider", providerName).withDetail("resource", resource).build();
        } catch (TimeoutException e) {
            answer.cancel(true);
            return Health.down().withDetail("provider", providerName)
                    .withDetail("error", "no answer within " + timeout.toMillis() + " ms").build();
        } catch (ExecutionException e) {
            return Health.down(e.getCause() instanceof Exception cause ? cause : e)
                    .withDetail("provider", providerName).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Health.down().withDetail("provider", providerName).withDetail("error", "interrupted").build();
        }
    }

    /** Ends the indicator's thread. */
    @Override
    public void close() {
        asker.shutdownNow();
    }
}
