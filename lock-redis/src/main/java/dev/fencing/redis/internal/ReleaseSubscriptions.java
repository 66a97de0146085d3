package dev.fencing.redis.internal;

import dev.fencing.core.spi.ReleaseWatch;
import dev.fencing.core.spi.SharedWatches;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Subscribes one pub/sub connection to a release channel only while at least one local waiter
 * watches it, so a release that nobody waits for publishes to no one and no process receives
 * notices it does not need. Counted per channel by {@link SharedWatches}: the first watcher
 * subscribes, the last one unsubscribes, and an unsubscribe is issued before the next subscribe
 * of the same channel, so a watcher arriving while the last one leaves finds it subscribed.
 * Thread-safe.
 */
public final class ReleaseSubscriptions {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseSubscriptions.class);

    private final SharedWatches<String, CompletableFuture<Void>> channels;

    /** A watcher's subscription: {@link #ready()} completes once Redis confirmed it. */
    public static final class Watch implements ReleaseWatch {
        private final SharedWatches<String, CompletableFuture<Void>>.Share share;

        private Watch(SharedWatches<String, CompletableFuture<Void>>.Share share) {
            this.share = share;
        }

        /** Completes when the channel's subscription is live; fails if Redis refused it. */
        public CompletableFuture<Void> ready() {
            return share.watch();
        }

        @Override
        public void close() {
            share.close();
        }
    }

    /**
     * @param pubSub the connection to subscribe
     * @param onRelease called with a message's payload (the released resource), on a Lettuce thread
     */
    public ReleaseSubscriptions(StatefulRedisPubSubConnection<String, String> pubSub, Consumer<String> onRelease) {
        this.channels = new SharedWatches<>(channel -> pubSub.async().subscribe(channel).toCompletableFuture(),
                (channel, subscribed) -> pubSub.async().unsubscribe(channel));
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String resource) {
                onRelease.accept(resource);
            }
        });
    }

    /** Subscribes to {@code channel} unless another watcher already did; does not wait. */
    public Watch start(String channel) {
        return new Watch(channels.join(channel));
    }

    /**
     * {@link #start} and wait up to {@code timeout} for the subscription. If Redis does not
     * confirm it in time the watch is returned all the same: the waiter then relies on its backoff.
     */
    public ReleaseWatch watch(String channel, Duration timeout) {
        Watch watch = start(channel);
        try {
            watch.ready().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the wait loop sees it before it sleeps
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug("no release notices on {} ({}); waiting by backoff", channel, e.toString());
        }
        return watch;
    }
}
