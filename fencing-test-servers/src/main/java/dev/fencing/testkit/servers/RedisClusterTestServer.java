package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster for tests: {@code masters} {@code redis-server} child processes with
 * {@code cluster-enabled yes}, the 16384 slots split evenly between them, joined by
 * {@code CLUSTER MEET}, and ready ({@code cluster_state:ok} on every node) when {@link #launch}
 * returns. No replicas, no persistence. Node configuration files live in a scratch folder deleted
 * when the JVM exits.
 */
public final class RedisClusterTestServer {

    /** Slots in a Redis Cluster. */
    public static final int SLOTS = 16384;

    private final List<RedisTestServer> nodes;

    private RedisClusterTestServer(List<RedisTestServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts a cluster of {@code masters} nodes (3 to 9) and waits until it serves every slot.
     *
     * @throws IllegalStateException if the cluster does not become ready within 30 seconds
     */
    public static RedisClusterTestServer launch(int masters) {
        return launch(masters, null, List.of());
    }

    /**
     * As {@link #launch(int)}, but the nodes serve clients and talk to each other over TLS
     * ({@code tls-cluster yes}: {@code CLUSTER SLOTS} names their TLS ports) with the server
     * certificate of {@code certificates}; see {@link RedisTestServer#launchTls}. Give the clients
     * under test {@link #tlsSeedUris()}; {@code extraArguments} go to every node (ACL users, say).
     */
    public static RedisClusterTestServer launchTls(int masters, TestCertificates certificates,
            String... extraArguments) {
        return launch(masters, certificates, List.of(extraArguments));
    }

    private static RedisClusterTestServer launch(int masters, @Nullable TestCertificates certificates,
            List<String> extraArguments) {
        if (masters < 3 || masters > 9) {
            throw new IllegalArgumentException("a Redis Cluster needs 3 to 9 masters here, got " + masters);
        }
        Path scratch = scratchFolder();
        List<RedisTestServer> nodes = new ArrayList<>();
        for (int i = 0; i < masters; i++) {
            List<String> arguments = new ArrayList<>(List.of("--cluster-enabled", "yes",
                    "--cluster-config-file", scratch.resolve("nodes-" + i + ".conf").toString(),
                    "--cluster-node-timeout", "5000"));
            if (certificates != null) {
                arguments.addAll(List.of("--tls-cluster", "yes", "--tls-replication", "yes"));
            }
            arguments.addAll(extraArguments);
            String[] all = arguments.toArray(String[]::new);
            nodes.add(RedisTestServer.launchClusterNode(certificates, all));
        }
        for (int i = 0; i < masters; i++) {
            int first = SLOTS * i / masters;
            int last = SLOTS * (i + 1) / masters - 1;
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = first; slot <= last; slot++) {
                command.add(Integer.toString(slot));
            }
            nodes.get(i).command(command.toArray(String[]::new));
        }
        RedisTestServer first = nodes.get(0);
        for (RedisTestServer other : nodes.subList(1, masters)) {
            // the bus port is the announced client port + 10000: the TLS port under tls-cluster
            int announced = certificates == null ? other.port() : other.tlsPort();
            first.command("CLUSTER", "MEET", other.host(), Integer.toString(announced));
        }
        RedisClusterTestServer cluster = new RedisClusterTestServer(nodes);
        cluster.awaitReady(30_000);
        return cluster;
    }

    /** An external cluster reached through the given seed URIs; faults cannot be injected. */
    public static RedisClusterTestServer external(List<String> seedUris) {
        return new RedisClusterTestServer(seedUris.stream().map(RedisTestServer::external).toList());
    }

    private void awaitReady(long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        String lastInfo = "";
        while (System.nanoTime() < deadline) {
            boolean ready = true;
            for (RedisTestServer node : nodes) {
                lastInfo = String.valueOf(node.command("CLUSTER", "INFO"));
                ready &= lastInfo.contains("cluster_state:ok") && lastInfo.contains("cluster_known_nodes:" + nodes.size());
            }
            if (ready) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the Redis Cluster", e);
            }
        }
        throw new IllegalStateException("the Redis Cluster did not become ready in " + timeoutMillis + " ms; last"
                + " CLUSTER INFO: " + lastInfo);
    }

    /** The nodes, each a master serving an equal share of the slots. */
    public List<RedisTestServer> nodes() {
        return nodes;
    }

    /** The nodes' URIs, for {@code RedisClusterClient.create(...)}. */
    public List<String> seedUris() {
        return nodes.stream().map(RedisTestServer::uri).toList();
    }

    /** The nodes' {@code rediss://} URIs, for a cluster started with {@link #launchTls}. */
    public List<String> tlsSeedUris() {
        return nodes.stream().map(RedisTestServer::tlsUri).toList();
    }

    /** The slot the cluster assigns to {@code key} ({@code CLUSTER KEYSLOT}). */
    public int slotOf(String key) {
        return Integer.parseInt(String.valueOf(nodes.get(0).command("CLUSTER", "KEYSLOT", key)));
    }

    /** The nodes that hold {@code key}, asked of every node with {@code EXISTS}. */
    public List<RedisTestServer> nodesHolding(String key) {
        List<RedisTestServer> holders = new ArrayList<>();
        for (RedisTestServer node : nodes) {
            try {
                if ("1".equals(node.command("EXISTS", key))) {
                    holders.add(node);
                }
            } catch (IllegalStateException moved) {
                // a MOVED error: this node does not serve the key's slot
            }
        }
        return holders;
    }

    /** Deletes every key on every node. */
    public void flushAll() {
        nodes.forEach(RedisTestServer::flushAll);
    }

    private static Path scratchFolder() {
        try {
            Path folder = Files.createTempDirectory("fencing-redis-cluster");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(folder), "fencing-redis-cluster-cleanup"));
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a scratch folder for the Redis Cluster's node files", e);
        }
    }

    private static void deleteQuietly(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // best effort at JVM exit
        }
    }

    @Override
    public String toString() {
        return "Redis Cluster at " + String.join(",", seedUris());
    }
}
