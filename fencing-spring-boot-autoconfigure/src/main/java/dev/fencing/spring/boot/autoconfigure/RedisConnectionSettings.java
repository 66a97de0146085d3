package dev.fencing.spring.boot.autoconfigure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the application's Redis is, read from Boot's Redis connection details or from the
 * {@code spring.data.redis.*} properties, in a form that does not need Spring Data Redis.
 *
 * @param topology standalone, Sentinel-managed or Cluster
 * @param nodes the server (standalone), the sentinels, or the cluster's seed nodes
 * @param database the database index (standalone and Sentinel)
 * @param username the data nodes' user, or null
 * @param password the data nodes' password, or null
 * @param sentinelMaster the Sentinel master's name (Sentinel only)
 * @param sentinelUsername the sentinels' own user, or null
 * @param sentinelPassword the sentinels' own password, or null
 * @param ssl the SSL bundle when TLS is on, else null
 * @param source where the settings came from, for messages
 */
record RedisConnectionSettings(Topology topology, List<HostPort> nodes, int database, @Nullable String username,
        @Nullable String password, @Nullable String sentinelMaster, @Nullable String sentinelUsername,
        @Nullable String sentinelPassword, @Nullable SslBundle ssl, String source) {

    /** How the Redis servers are arranged. */
    enum Topology {
        STANDALONE, SENTINEL, CLUSTER
    }

    /** One server's address. */
    record HostPort(String host, int port) {

        /**
         * Parses {@code host:port}.
         *
         * @throws IllegalArgumentException naming {@code property} if it is not of that form
         */
        static HostPort parse(String property, String value) {
            int colon = value == null ? -1 : value.lastIndexOf(':');
            if (colon <= 0 || colon == value.length() - 1) {
                throw new IllegalArgumentException(property + " entries must be host:port, got '" + value + "'");
            }
            try {
                return new HostPort(value.substring(0, colon).strip(), Integer.parseInt(value.substring(colon + 1).strip()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(property + " entries must be host:port, got '" + value + "'", e);
            }
        }
    }

    RedisConnectionSettings {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no Redis " + (topology == Topology.CLUSTER ? "cluster node"
                    : topology == Topology.SENTINEL ? "sentinel" : "server") + " in " + source);
        }
    }
}
