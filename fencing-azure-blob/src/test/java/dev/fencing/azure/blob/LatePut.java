package dev.fencing.azure.blob;

import com.azure.core.http.HttpMethod;
import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * A slow network: the next {@code armed} {@code PUT}s reach the server only after {@code delay},
 * however long the client waited (the delay ignores interrupts, as a packet in flight does).
 * {@link #arrived} counts down when a delayed one has been answered.
 */
final class LatePut implements HttpPipelinePolicy {

    final AtomicInteger armed = new AtomicInteger();
    final CountDownLatch arrived = new CountDownLatch(1);
    private final Duration delay;

    LatePut(Duration delay) {
        this.delay = delay;
    }

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
        if (!take(context)) {
            return next.process();
        }
        // subscribed now and not cancelled with the caller's wait: the request is in flight
        CompletableFuture<HttpResponse> inFlight = next.process().delaySubscription(delay)
                .doFinally(signal -> arrived.countDown()).toFuture();
        return Mono.fromFuture(inFlight, true);
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
        if (!take(context)) {
            return next.processSync();
        }
        long until = System.nanoTime() + delay.toNanos();
        boolean interrupted = false;
        while (System.nanoTime() < until) {
            try {
                Thread.sleep(Math.max(1, (until - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        try {
            return next.processSync();
        } finally {
            arrived.countDown();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean take(HttpPipelineCallContext context) {
        return context.getHttpRequest().getHttpMethod() == HttpMethod.PUT && armed.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    }
}
