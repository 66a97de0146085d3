package dev.fencing.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * One shared command connection and one pub/sub connection to standalone Redis (or a Sentinel-managed
 * master) or to a Redis Cluster. Scripts are routed by their first key, so in a cluster they run on
 * the master of that key's slot; every script's keys share one hash tag.
 */
public final class RedisBackend implements AutoCloseable {

    private final AbstractRedisClient client;
    private final boolean ownsClient;
    private final StatefulConnection<String, String> connection;
    private final RedisScriptingCommands<String, String> scripting;
    private final RedisScriptingAsyncCommands<String, String> asyncScripting;
    private final RedisClusterCommands<String, String> keys;
    /** The standalone connection's commands, for WAIT; null on a Cluster. */
    private final @Nullable RedisCommands<String, String> standalone;
    private final StatefulRedisPubSubConnection<String, String> pubSub;

    private RedisBackend(AbstractRedisClient client, boolean ownsClient, StatefulConnection<String, String> connection,
            RedisClusterCommands<String, String> commands, RedisScriptingAsyncCommands<String, String> asyncScripting,
            @Nullable RedisCommands<String, String> standalone, StatefulRedisPubSubConnection<String, String> pubSub) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.connection = connection;
        this.scripting = commands;
        this.asyncScripting = asyncScripting;
        this.keys = commands;
        this.standalone = standalone;
        this.pubSub = pubSub;
    }

    /**
     * Connects to a standalone or Sentinel-managed Redis. A client the caller does not own keeps
     * its options; an owned one gets fail-fast options, and its connections wait
     * {@code commandTimeout} for a reply to a synchronous call (the callers of the asynchronous
     * commands bound their own waits).
     *
     * <p>Command timeouts ({@code TimeoutOptions}, on by default since Lettuce 7) are switched off:
     * they arm a timer for every command and cancel it at the reply — with 16 threads every
     * command queues on the client's one timer — while a synchronous call's wait ends at the same
     * timeout anyway.
     */
    public static RedisBackend standalone(RedisClient client, boolean ownsClient, Duration commandTimeout,
            Duration connectTimeout, @Nullable SslOptions sslOptions) {
        if (ownsClient) {
            client.setOptions(ClientOptions.builder()
                    .sslOptions(sslOptions == null ? SslOptions.create() : sslOptions)
                    .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
                    .build());
        }
        StatefulRedisConnection<String, String> connection = null;
        try {
            connection = client.connect();
            StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub();
            if (ownsClient) {
                connection.setTimeout(commandTimeout);
                pubSub.setTimeout(commandTimeout);
            }
            return new RedisBackend(client, ownsClient, connection, connection.sync(), connection.async(),
                    connection.sync(), pubSub);
        } catch (RuntimeException e) {
            closeAfterFailure(client, ownsClient, connection);
            throw e;
        }
    }

    /**
     * Connects to a Redis Cluster. An owned client gets {@code commandTimeout}, a topology refresh
     * every 30 s, and keeps commands queued while a node reconnects (up to the timeout).
     */
    public static RedisBackend cluster(RedisClusterClient client, boolean ownsClient, Duration commandTimeout,
            Duration connectTimeout, @Nullable SslOptions sslOptions) {
        if (ownsClient) {
            // not REJECT_COMMANDS: the cluster writer would reject commands to a node whose
            // connection is still being opened lazily; the command timeout bounds the wait instead
            client.setOptions(ClusterClientOptions.builder()
                    .sslOptions(sslOptions == null ? SslOptions.create() : sslOptions)
                    .socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build())
                    .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(Duration.ofSeconds(30)).build())
                    .build());
        }
        StatefulRedisClusterConnection<String, String> connection = null;
        try {
            connection = client.connect();
            return new RedisBackend(client, ownsClient, connection, connection.sync(), connection.async(), null,
                    client.connectPubSub());
        } catch (RuntimeException e) {
            closeAfterFailure(client, ownsClient, connection);
            throw e;
        }
    }

    /**
     * {@code uri} (and its Sentinels) with {@code connectTimeout} as the timeout of the connection
     * handshake — Lettuce waits the URI's timeout (default 60 s) for a server that accepted the
     * connection to answer {@code HELLO}/{@code PING}; the command timeout is set on each
     * connection afterwards.
     */
    public static RedisURI withConnectTimeout(RedisURI uri, Duration connectTimeout) {
        uri.setTimeout(connectTimeout);
        uri.getSentinels().forEach(sentinel -> sentinel.setTimeout(connectTimeout));
        return uri;
    }

    /**
     * The one-line reason a connect failed: "did not answer within connectTimeout" when it took the
     * whole bound (a server that accepts TCP but never answers), else Lettuce's reason.
     */
    public static String connectFailure(RedisException e, Duration connectTimeout, long tookNanos) {
        if (tookNanos >= connectTimeout.toNanos() - TimeUnit.MILLISECONDS.toNanos(50) || timedOut(e)) {
            return "the server did not answer the connection handshake within connectTimeout "
                    + connectTimeout.toMillis() + " ms (Lettuce: " + e.getMessage() + "; a rediss:// URI to a port"
                    + " without TLS ends this way too)";
        }
        SSLException tls = tlsFailure(e);
        if (tls != null) {
            return "the TLS handshake failed, " + tlsAdvice(tls) + " (" + tls.getMessage() + ")";
        }
        return "cannot connect: " + e.getMessage();
    }

    private static @Nullable SSLException tlsFailure(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException ssl) {
                return ssl;
            }
        }
        return null;
    }

    private static String tlsAdvice(SSLException tls) {
        for (Throwable cause = tls; cause != null; cause = cause.getCause()) {
            if (cause instanceof CertificateException) {
                return "the server's certificate is not signed by an authority sslOptions trusts, or does not name the"
                        + " host connected to";
            }
        }
        String message = String.valueOf(tls.getMessage());
        if (message.contains("plaintext") || message.contains("Unrecognized SSL message")) {
            return "the port does not speak TLS: is it the server's tls-port?";
        }
        return "the server may have refused the client certificate (tls-auth-clients needs one its authority"
                + " signed) or the protocol";
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCommandTimeoutException || cause instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static void closeAfterFailure(AbstractRedisClient client, boolean ownsClient,
            @Nullable AutoCloseable connection) {
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (Exception ignored) {
            // the connect failure is the error worth reporting
        } finally {
            if (ownsClient) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /** Script commands on the shared connection. */
    public RedisScriptingCommands<String, String> scripting() {
        return scripting;
    }

    /** Script commands on the shared connection that do not wait for the reply. */
    public RedisScriptingAsyncCommands<String, String> asyncScripting() {
        return asyncScripting;
    }

    /** Plain key commands on the shared connection (routed by key in a cluster). */
    public RedisClusterCommands<String, String> keys() {
        return keys;
    }

    /** The shared pub/sub connection (in a cluster, messages published on any node reach it). */
    public StatefulRedisPubSubConnection<String, String> pubSub() {
        return pubSub;
    }

    /**
     * {@code WAIT replicas timeout} on the shared connection: blocks until {@code replicas}
     * replicas acknowledged every earlier write of this connection, or the timeout passed.
     *
     * @return how many replicas acknowledged
     * @throws UnsupportedOperationException on a Cluster connection
     */
    public long waitForReplicas(int replicas, Duration timeout) {
        if (standalone == null) {
            throw new UnsupportedOperationException("WAIT is not supported on a Redis Cluster connection");
        }
        return standalone.waitForReplication(replicas, timeout.toMillis());
    }

    @Override
    public void close() {
        try {
            pubSub.close();
            connection.close();
        } finally {
            if (ownsClient) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }
}
