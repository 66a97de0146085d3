package dev.fencing.redis;

import dev.fencing.redis.internal.LuaScript;
import dev.fencing.redis.internal.RedisBackend;
import dev.fencing.redis.internal.RedisVersion;
import dev.fencing.redis.internal.ReleaseSubscriptions;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One independent master of a {@link RedlockProvider}: its own client, one command connection and
 * one pub/sub connection for release notices, opened without blocking and reopened on use if they
 * could not be opened (a node that was down when the provider started). Once open, Lettuce
 * reconnects them (and resubscribes), and rejects commands while the node is down.
 */
final class RedlockNode {

    private final RedisClient client;
    private final RedisURI uri;
    private final Consumer<String> onRelease;
    private volatile CompletableFuture<StatefulRedisConnection<String, String>> connection;
    private volatile CompletableFuture<Notices> notices;

    /** The pub/sub connection and the subscriptions on it. */
    private record Notices(StatefulRedisPubSubConnection<String, String> connection, ReleaseSubscriptions subscriptions) {}

    private RedlockNode(RedisClient client, RedisURI uri, Consumer<String> onRelease) {
        this.client = client;
        this.uri = uri;
        this.onRelease = onRelease;
        this.connection = connect();
        this.notices = listen();
    }

    /**
     * Starts connecting to the master at {@code uri} (a {@code redis://} URI), each connection
     * bounded by {@code connectTimeout}; {@code onRelease} hears the resource of every release
     * notice, on a Lettuce thread.
     */
    static RedlockNode open(String uri, Duration connectTimeout, @Nullable SslOptions sslOptions,
            Consumer<String> onRelease) {
        RedisClient client = RedisClient.create();
        client.setOptions(ClientOptions.builder()
                .sslOptions(sslOptions == null ? SslOptions.create() : sslOptions)
                .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(5)))
                .build());
        return new RedlockNode(client, RedisBackend.withConnectTimeout(RedisURI.create(uri), connectTimeout), onRelease);
    }

    /** The node as host:port, for messages. */
    String name() {
        return uri.getHost() + ":" + uri.getPort();
    }

    /** The command connection as first opened: fails with {@link UnsupportedVersion} for a Redis too old. */
    CompletableFuture<StatefulRedisConnection<String, String>> connection() {
        return connection;
    }

    private CompletableFuture<StatefulRedisConnection<String, String>> connect() {
        return client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture()
                .thenCompose(open -> open.async().info("server").toCompletableFuture().thenApply(info -> {
                    Optional<String> tooOld = RedisVersion.problem(info, "Redis at " + name());
                    if (tooOld.isPresent()) {
                        open.closeAsync();
                        throw new UnsupportedVersion(tooOld.get());
                    }
                    return open;
                }));
    }

    private CompletableFuture<Notices> listen() {
        return client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture()
                .thenApply(pubSub -> new Notices(pubSub, new ReleaseSubscriptions(pubSub, onRelease)));
    }

    /** Runs {@code script} on this node, reconnecting first if the connection could never be opened. */
    CompletableFuture<Long> run(LuaScript script, String[] keys, String... args) {
        CompletableFuture<StatefulRedisConnection<String, String>> current = connection;
        if (current.isCompletedExceptionally()) {
            synchronized (this) {
                if (connection == current) {
                    connection = connect();
                }
                current = connection;
            }
        }
        return current.thenCompose(open -> script.runAsync(open.async(), keys, args));
    }

    /** Subscribes to {@code channel} on this node; the future completes when the subscription is live. */
    CompletableFuture<ReleaseSubscriptions.Watch> watch(String channel) {
        CompletableFuture<Notices> current = notices;
        if (current.isCompletedExceptionally()) {
            synchronized (this) {
                if (notices == current) {
                    notices = listen();
                }
                current = notices;
            }
        }
        return current.thenApply(open -> open.subscriptions().start(channel));
    }

    void close() {
        try {
            // closeAsync: a connection still opening completes on Lettuce's event loop, and a blocking
            // close() run there waits for that same loop — the node, and shutdown() below, hang for ever
            connection.thenAccept(StatefulRedisConnection::closeAsync).getNow(null);
            notices.thenAccept(open -> open.connection().closeAsync()).getNow(null);
        } catch (RuntimeException ignored) {
            // never opened
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** A node that runs a Redis too old for the scripts. */
    static final class UnsupportedVersion extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnsupportedVersion(String message) {
            super(message, null, false, false);
        }
    }
}
