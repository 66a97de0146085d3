package dev.fencing.redis.internal;

import dev.fencing.core.spi.ReleaseWatch;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Subscribes the shared pub/sub connection to a release channel only while at least one local
 * waiter watches it, so a release that nobody waits for publishes to no one and no process
 * receives notices it does not need. Counted per channel: the first watcher subscribes, the last
 * one unsubscribes. Commands are issued in order under one lock, so an unsubscribe followed by a
 * subscribe of the same channel leaves it subscribed. Thread-safe.
 */
public final class ReleaseSubscriptions {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseSubscriptions.class);

    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final Duration timeout;
    private final Map<String, Channel> channels = new HashMap<>();

    private static final class Channel {
        int watchers;
        RedisFuture<Void> subscribed;
    }

    /**
     * @param pubSub the connection to subscribe; its listener turns messages into wake-ups
     * @param timeout how long a watcher waits for the subscription to be confirmed
     */
    public ReleaseSubscriptions(StatefulRedisPubSubConnection<String, String> pubSub, Duration timeout) {
        this.pubSub = pubSub;
        this.timeout = timeout;
    }

    /**
     * Subscribes to {@code channel} unless another watcher already did, and returns once the
     * subscription is confirmed. If Redis does not confirm it in time the watch is returned all
     * the same: the waiter then relies on its backoff.
     */
    public ReleaseWatch watch(String channel) {
        RedisFuture<Void> subscribed;
        synchronized (this) {
            Channel entry = channels.computeIfAbsent(channel, c -> new Channel());
            if (entry.watchers++ == 0) {
                entry.subscribed = pubSub.async().subscribe(channel);
            }
            subscribed = entry.subscribed;
        }
        AtomicBoolean closed = new AtomicBoolean();
        ReleaseWatch watch = () -> {
            if (closed.compareAndSet(false, true)) {
                unwatch(channel);
            }
        };
        try {
            subscribed.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the wait loop sees it before it sleeps
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            LOG.debug("no release notices on {} ({}); waiting by backoff", channel, e.toString());
        }
        return watch;
    }

    /** How many local waiters watch {@code channel} now. */
    public synchronized int watchers(String channel) {
        Channel entry = channels.get(channel);
        return entry == null ? 0 : entry.watchers;
    }

    private synchronized void unwatch(String channel) {
        Channel entry = channels.get(channel);
        if (entry != null && --entry.watchers == 0) {
            channels.remove(channel);
            pubSub.async().unsubscribe(channel);
        }
    }
}
