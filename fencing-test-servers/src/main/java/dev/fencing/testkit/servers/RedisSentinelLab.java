package dev.fencing.testkit.servers;

import dev.fencing.testkit.internal.Ports;
import dev.fencing.testkit.internal.Resp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Redis primary with replicas and Sentinels, each a {@link RedisLabNode} in a network namespace
 * of its own in a {@link NetworkLab}: {@code redis1} the first primary, {@code redis2, ...} its
 * replicas, {@code sentinel1, ...} Sentinels on port 26379 monitoring them as {@link #MASTER_NAME}
 * with a quorum of a majority of the Sentinels, declaring a primary down after 1 s. Replication is
 * Redis's own: asynchronous, so a replica promoted by a failover may lack the newest writes. Every
 * data node keeps an append-only file fsynced on every write. Not shared: each test launches its
 * own and closes it.
 */
public final class RedisSentinelLab implements LabCluster {

    /** The name the Sentinels monitor the primary under. */
    public static final String MASTER_NAME = "fencing";

    /** The port every Sentinel listens on, on its own address. */
    public static final int SENTINEL_PORT = 26379;

    private final List<RedisLabNode> dataNodes;
    private final List<RedisLabNode> sentinels;

    private RedisSentinelLab(List<RedisLabNode> dataNodes, List<RedisLabNode> sentinels) {
        this.dataNodes = List.copyOf(dataNodes);
        this.sentinels = List.copyOf(sentinels);
    }

    /**
     * Starts a primary, {@code replicas} replicas (1 to 4) and {@code sentinels} Sentinels (1 to 5)
     * in {@code lab}, and waits until every replica is in sync and every Sentinel reports the
     * primary.
     *
     * @throws IllegalArgumentException if a count is out of range
     */
    public static RedisSentinelLab launchIn(NetworkLab lab, int replicas, int sentinels) {
        if (replicas < 1 || replicas > 4 || sentinels < 1 || sentinels > 5) {
            throw new IllegalArgumentException("a Sentinel lab has 1 to 4 replicas and 1 to 5 Sentinels, got "
                    + replicas + " and " + sentinels);
        }
        List<RedisLabNode> data = new ArrayList<>();
        List<RedisLabNode> watchers = new ArrayList<>();
        try {
            Path root = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                    "fencing-testkit")), "redis-sentinel-lab-");
            RedisLabNode primary = new RedisLabNode(lab, "redis1", root.resolve("redis1"));
            data.add(primary);
            primary.start();
            for (int i = 2; i <= replicas + 1; i++) {
                String name = "redis" + i;
                RedisLabNode replica = new RedisLabNode(lab, name, root.resolve(name), RedisLabNode.PORT,
                        (address, dir) -> List.of("--port", Integer.toString(RedisLabNode.PORT), "--bind", address,
                                "--protected-mode", "no", "--daemonize", "no", "--save", "", "--appendonly", "yes",
                                "--appendfsync", "always", "--dir", dir.toString(), "--replicaof", primary.address(),
                                Integer.toString(RedisLabNode.PORT)));
                data.add(replica);
                replica.start();
            }
            int quorum = sentinels / 2 + 1;
            for (int i = 1; i <= sentinels; i++) {
                String name = "sentinel" + i;
                RedisLabNode sentinel = new RedisLabNode(lab, name, root.resolve(name), SENTINEL_PORT,
                        (address, dir) -> {
                            Path configuration = dir.resolve("sentinel.conf");
                            Files.writeString(configuration, String.join("\n",
                                    "port " + SENTINEL_PORT,
                                    "bind " + address,
                                    "protected-mode no",
                                    "dir " + dir,
                                    "sentinel monitor " + MASTER_NAME + " " + primary.address() + " "
                                            + RedisLabNode.PORT + " " + quorum,
                                    "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                                    "sentinel failover-timeout " + MASTER_NAME + " 4000",
                                    "sentinel parallel-syncs " + MASTER_NAME + " 1") + "\n");
                            return List.of(configuration.toString(), "--sentinel");
                        });
                watchers.add(sentinel);
                sentinel.start();
            }
            RedisSentinelLab started = new RedisSentinelLab(data, watchers);
            started.members().forEach(m -> m.awaitHealthy(Duration.ofSeconds(20)));
            Ports.awaitCondition("the Sentinels agreeing on " + primary.describe(), Duration.ofSeconds(30),
                    () -> watchers.stream().allMatch(s -> primary.equals(started.primaryAccordingTo(s).orElse(null))),
                    () -> "the Sentinels did not all report " + primary.describe() + ": " + started.describe());
            return started;
        } catch (IOException e) {
            new RedisSentinelLab(data, watchers).close();
            throw new UncheckedIOException("cannot write the Sentinel lab's directories", e);
        } catch (RuntimeException e) {
            new RedisSentinelLab(data, watchers).close();
            throw e;
        }
    }

    /** The data nodes (the primary and replicas, in name order), then the Sentinels. */
    @Override
    public List<RedisLabNode> members() {
        return Stream.concat(dataNodes.stream(), sentinels.stream()).toList();
    }

    /** The primary and its replicas. */
    public List<RedisLabNode> dataNodes() {
        return dataNodes;
    }

    /** The Sentinels. */
    public List<RedisLabNode> sentinels() {
        return sentinels;
    }

    /**
     * {@code redis-sentinel://s1:26379,s2:26379,...#fencing}: a Lettuce URI that follows the
     * primary through failovers.
     */
    public String uri() {
        return "redis-sentinel://" + sentinels.stream().map(s -> s.address() + ":" + SENTINEL_PORT)
                .collect(Collectors.joining(",")) + "#" + MASTER_NAME;
    }

    /** The Sentinels elect the primary. */
    @Override
    public boolean electsLeader() {
        return true;
    }

    /**
     * Waits up to {@code timeout} for the data node that a majority of the Sentinels name as the
     * primary, running, and returns it.
     */
    @Override
    public RedisLabNode awaitLeader(Duration timeout) {
        AtomicReference<RedisLabNode> found = new AtomicReference<>();
        Ports.awaitCondition("a Redis primary named by a majority of the Sentinels", timeout, () -> {
            for (RedisLabNode candidate : dataNodes) {
                long votes = sentinels.stream().filter(s -> candidate.equals(primaryAccordingTo(s).orElse(null)))
                        .count();
                if (candidate.isRunning() && votes > sentinels.size() / 2) {
                    found.set(candidate);
                    return true;
                }
            }
            return false;
        }, () -> "no primary named by a majority of the Sentinels within " + timeout + ": " + describe());
        return Objects.requireNonNull(found.get(), "awaitCondition returned, so a primary was found");
    }

    /** The data node {@code sentinel} says is the primary now, if it answers within a second. */
    public Optional<RedisLabNode> primaryAccordingTo(RedisLabNode sentinel) {
        try {
            Object reply = Resp.command(sentinel.address(), SENTINEL_PORT, 1000, "SENTINEL", "get-master-addr-by-name",
                    MASTER_NAME);
            if (reply instanceof List<?> address && !address.isEmpty()) {
                String host = String.valueOf(address.get(0));
                return dataNodes.stream().filter(node -> node.address().equals(host)).findFirst();
            }
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public String describe() {
        return "Redis primary and replicas " + dataNodes.stream().map(RedisLabNode::describe)
                .collect(Collectors.joining("; ")) + "; Sentinels " + sentinels.stream().map(RedisLabNode::describe)
                .collect(Collectors.joining("; "));
    }

    /** Kills every node and Sentinel; their directories go when the JVM exits. */
    @Override
    public void close() {
        for (RedisLabNode node : members()) {
            try {
                node.kill();
            } catch (RuntimeException e) {
                // already gone
            }
        }
    }
}
