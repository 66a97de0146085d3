package dev.fencing.cli.backends;

import dev.fencing.testkit.servers.EtcdClusterTestServer;
import dev.fencing.testkit.servers.LabCluster;
import dev.fencing.testkit.servers.NetworkLab;
import dev.fencing.testkit.servers.PostgresLabCluster;
import dev.fencing.testkit.servers.RedisLabNode;
import dev.fencing.testkit.servers.RedisLabNodes;
import dev.fencing.testkit.servers.RedisSentinelLab;
import dev.fencing.testkit.servers.ZooKeeperLabEnsemble;
import java.util.ArrayList;
import java.util.List;

/**
 * The CLI options that point another process of this CLI at a lab cluster's lock and at the
 * store beside it: what a torture run hands its client processes.
 */
public final class ClusterAddresses {

    /** How the store's {@code redis-server} in the lab is named, but for its number (see {@code RedisBackend.storeInLab}). */
    static final String STORE_PREFIX = "store";

    /** The name of the store's {@code redis-server} in the lab. */
    static final String STORE = STORE_PREFIX + "1";

    private ClusterAddresses() {}

    /** {@code --lock} and its server options for the lock running on {@code cluster}. */
    public static List<String> lockOptions(LabCluster cluster) {
        if (cluster instanceof EtcdClusterTestServer etcd) {
            return List.of("--lock", "etcd", "--etcd-endpoints", String.join(",", etcd.endpoints()));
        }
        if (cluster instanceof ZooKeeperLabEnsemble ensemble) {
            return List.of("--lock", "zookeeper", "--zookeeper-connect", ensemble.connectString());
        }
        if (cluster instanceof RedisLabNodes nodes) {
            List<String> options = new ArrayList<>(List.of("--lock", "redlock"));
            nodes.uris().forEach(uri -> options.addAll(List.of("--redis-uri", uri)));
            return options;
        }
        if (cluster instanceof RedisSentinelLab sentinels) {
            return List.of("--lock", "redis", "--redis-uri", sentinels.uri());
        }
        if (cluster instanceof PostgresLabCluster postgres) {
            return List.of("--lock", "postgres", "--pg-url", postgres.jdbcUrl());
        }
        throw new IllegalArgumentException("no client options for " + cluster.describe());
    }

    /** {@code --store redis} and the URI of the store's server in {@code lab}. */
    public static List<String> storeOptions(NetworkLab lab) {
        return List.of("--store", "redis", "--redis-store-uri", "redis://" + lab.address(STORE) + ":" + RedisLabNode.PORT);
    }
}
