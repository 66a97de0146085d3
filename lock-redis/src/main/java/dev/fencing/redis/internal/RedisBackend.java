package dev.fencing.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;

/**
 * One shared command connection and one pub/sub connection to standalone Redis (or a Sentinel-managed
 * master) or to a Redis Cluster. Scripts are routed by their first key, so in a cluster they run on
 * the master of that key's slot; every script's keys share one hash tag.
 */
public abstract class RedisBackend implements AutoCloseable {

    private final AbstractRedisClient client;
    private final boolean ownsClient;
    private final StatefulRedisPubSubConnection<String, String> pubSub;

    private RedisBackend(AbstractRedisClient client, boolean ownsClient,
            StatefulRedisPubSubConnection<String, String> pubSub) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.pubSub = pubSub;
    }

    /**
     * Connects to a standalone or Sentinel-managed Redis. A client the caller does not own keeps
     * its options; an owned one gets fail-fast options with {@code commandTimeout}.
     */
    public static RedisBackend standalone(RedisClient client, boolean ownsClient, Duration commandTimeout) {
        if (ownsClient) {
            client.setOptions(ClientOptions.builder()
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                    .build());
        }
        StatefulRedisConnection<String, String> connection = null;
        try {
            connection = client.connect();
            return new Standalone(client, ownsClient, connection, client.connectPubSub());
        } catch (RuntimeException e) {
            closeAfterFailure(client, ownsClient, connection);
            throw e;
        }
    }

    /**
     * Connects to a Redis Cluster. An owned client gets {@code commandTimeout}, a topology refresh
     * every 30 s, and keeps commands queued while a node reconnects (up to the timeout).
     */
    public static RedisBackend cluster(RedisClusterClient client, boolean ownsClient, Duration commandTimeout) {
        if (ownsClient) {
            // not REJECT_COMMANDS: the cluster writer would reject commands to a node whose
            // connection is still being opened lazily; the command timeout bounds the wait instead
            client.setOptions(ClusterClientOptions.builder()
                    .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(Duration.ofSeconds(30)).build())
                    .build());
        }
        StatefulRedisClusterConnection<String, String> connection = null;
        try {
            connection = client.connect();
            return new Cluster(client, ownsClient, connection, client.connectPubSub());
        } catch (RuntimeException e) {
            closeAfterFailure(client, ownsClient, connection);
            throw e;
        }
    }

    private static void closeAfterFailure(AbstractRedisClient client, boolean ownsClient, AutoCloseable connection) {
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
    public abstract RedisScriptingCommands<String, String> scripting();

    /** Script commands on the shared connection that do not wait for the reply. */
    public abstract RedisScriptingAsyncCommands<String, String> asyncScripting();

    /** Plain key commands on the shared connection (routed by key in a cluster). */
    public abstract RedisClusterCommands<String, String> keys();

    /** The shared pub/sub connection (in a cluster, messages published on any node reach it). */
    public final StatefulRedisPubSubConnection<String, String> pubSub() {
        return pubSub;
    }

    /** Whether {@link #waitForReplicas} is available: only on a standalone or Sentinel-managed master. */
    public abstract boolean supportsWait();

    /**
     * {@code WAIT replicas timeout} on the shared connection: blocks until {@code replicas}
     * replicas acknowledged every earlier write of this connection, or the timeout passed.
     *
     * @return how many replicas acknowledged
     */
    public abstract long waitForReplicas(int replicas, Duration timeout);

    @Override
    public final void close() {
        try {
            pubSub.close();
            closeCommands();
        } finally {
            if (ownsClient) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    abstract void closeCommands();

    private static final class Standalone extends RedisBackend {
        private final StatefulRedisConnection<String, String> connection;

        Standalone(RedisClient client, boolean ownsClient, StatefulRedisConnection<String, String> connection,
                StatefulRedisPubSubConnection<String, String> pubSub) {
            super(client, ownsClient, pubSub);
            this.connection = connection;
        }

        @Override
        public RedisScriptingCommands<String, String> scripting() {
            return connection.sync();
        }

        @Override
        public RedisScriptingAsyncCommands<String, String> asyncScripting() {
            return connection.async();
        }

        @Override
        public RedisClusterCommands<String, String> keys() {
            return connection.sync();
        }

        @Override
        public boolean supportsWait() {
            return true;
        }

        @Override
        public long waitForReplicas(int replicas, Duration timeout) {
            return connection.sync().waitForReplication(replicas, timeout.toMillis());
        }

        @Override
        void closeCommands() {
            connection.close();
        }
    }

    private static final class Cluster extends RedisBackend {
        private final StatefulRedisClusterConnection<String, String> connection;

        Cluster(RedisClusterClient client, boolean ownsClient, StatefulRedisClusterConnection<String, String> connection,
                StatefulRedisPubSubConnection<String, String> pubSub) {
            super(client, ownsClient, pubSub);
            this.connection = connection;
        }

        @Override
        public RedisScriptingCommands<String, String> scripting() {
            return connection.sync();
        }

        @Override
        public RedisScriptingAsyncCommands<String, String> asyncScripting() {
            return connection.async();
        }

        @Override
        public RedisClusterCommands<String, String> keys() {
            return connection.sync();
        }

        @Override
        public boolean supportsWait() {
            return false;
        }

        @Override
        public long waitForReplicas(int replicas, Duration timeout) {
            throw new UnsupportedOperationException("WAIT is not supported on a Redis Cluster connection");
        }

        @Override
        void closeCommands() {
            connection.close();
        }
    }
}
