package dev.fencing.redis.internal;

import dev.fencing.core.spi.ReleaseWatch;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Subscribes one pub/sub connection to a release channel only while at least one local waiter
 * watches it, so a release that nobody waits for publishes to no one and no process receives
 * notices it does not need. Counted per channel: the first watcher subscribes, the last one
 * unsubscribes. Commands are issued in order under one lock, so an unsubscribe followed by a
 * subscribe of the same channel leaves it subscribed. Thread-safe.
 */
public final class ReleaseSubscriptions {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseSubscriptions.class);

    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final Map<String, Channel> channels = new HashMap<>();

    private static final class Channel {
        int watchers;
        @Nullable CompletableFuture<Void> subscribed;
    }

    /** A watcher's subscription: {@link #ready()} completes once Redis confirmed it. */
    public final class Watch implements ReleaseWatch {
        private final String channel;
        private final CompletableFuture<Void> ready;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Watch(String channel, CompletableFuture<Void> ready) {
            this.channel = channel;
            this.ready = ready;
        }

        /** Completes when the channel's subscription is live; fails if Redis refused it. */
        public CompletableFuture<Void> ready() {
            return ready;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                unwatch(channel);
            }
        }
    }

    /**
     * @param pubSub the connection to subscribe
     * @param onRelease called with a message's payload (the released resource), on a Lettuce thread
     */
    public ReleaseSubscriptions(StatefulRedisPubSubConnection<String, String> pubSub, Consumer<String> onRelease) {
        this.pubSub = pubSub;
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String resource) {
                onRelease.accept(resource);
            }
        });
    }

    /** Subscribes to {@code channel} unless another watcher already did; does not wait. */
    public synchronized Watch start(String channel) {
        Channel entry = channels.computeIfAbsent(channel, c -> new Channel());
        if (entry.watchers++ == 0) {
            entry.subscribed = pubSub.async().subscribe(channel).toCompletableFuture();
        }
        return new Watch(channel, java.util.Objects.requireNonNull(entry.subscribed, "set by the channel's first watcher"));
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

    private synchronized void unwatch(String channel) {
        Channel entry = channels.get(channel);
        if (entry != null && --entry.watchers == 0) {
            channels.remove(channel);
            pubSub.async().unsubscribe(channel);
        }
    }
}
