package dev.fencing.spring.boot.autoconfigure;

import dev.fencing.core.LockProvider;
import dev.fencing.core.LockState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code fencing} health indicator: asks the lock provider what it holds for one fixed
 * resource ({@link LockProvider#inspect}, one read, nothing locked) and reports
 * <ul>
 *   <li>UP when the provider answered within the timeout, with the provider's class;
 *   <li>DOWN with the error when it failed, or with the timeout when it did not answer in time
 *       (the question runs on one of this indicator's own threads, so a hung server never holds up
 *       the caller of the health endpoint);
 *   <li>UNKNOWN for a provider that cannot be inspected (Redlock), with the reason.
 * </ul>
 * A check that hangs in a call that ignores interrupts (a read on a silent server) does not wedge
 * later ones: each check gets a thread of its own, up to {@link #MAX_UNANSWERED} unanswered ones at
 * once; beyond that a check reports DOWN, saying so, until one of them returns. So health comes back
 * UP as soon as the server answers again. Thread-safe. Closed with the context (its threads end, or
 * are left to the call they are stuck in, as daemons).
 */
public final class FencingHealthIndicator implements HealthIndicator, AutoCloseable {

    /** How many checks may be waiting for an answer at once; further ones report DOWN at once. */
    public static final int MAX_UNANSWERED = 4;

    private final LockProvider provider;
    private final String resource;
    private final Duration timeout;
    private final ThreadPoolExecutor askers;

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
        AtomicInteger threads = new AtomicInteger();
        this.askers = new ThreadPoolExecutor(0, MAX_UNANSWERED, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "fencing-health-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    @Override
    public Health health() {
        String providerName = nameOf(provider);
        Future<Optional<LockState>> answer;
        try {
            answer = askers.submit(() -> provider.inspect(resource));
        } catch (RejectedExecutionException e) {
            return Health.down().withDetail("provider", providerName).withDetail("error", askers.isShutdown() ? "closed"
                    : MAX_UNANSWERED + " earlier checks still have no answer (the provider ignores their interrupts)")
                    .build();
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
            answer.cancel(true);
            Thread.currentThread().interrupt();
            return Health.down().withDetail("provider", providerName).withDetail("error", "interrupted").build();
        }
    }

    /** The provider's simple class name, or its full one for a class that has none (anonymous, lambda). */
    static String nameOf(LockProvider provider) {
        String simple = provider.getClass().getSimpleName();
        return simple.isEmpty() || simple.contains("$$Lambda") ? provider.getClass().getName() : simple;
    }

    /** Ends the indicator's threads (interrupting checks in flight). */
    @Override
    public void close() {
        askers.shutdownNow();
    }
}
