package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Independent Redis masters for Redlock, each a {@link RedisLabNode} in a network namespace of its
 * own in a {@link NetworkLab}, named {@code redis1, redis2, ...}. They know nothing of each other
 * and elect no leader. Not shared: each test launches its own and closes it.
 */
public final class RedisLabNodes implements LabCluster {

    private final List<RedisLabNode> nodes;

    private RedisLabNodes(List<RedisLabNode> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts {@code size} nodes (1 to 9) in {@code lab} and waits until each answers PING.
     *
     * @throws IllegalArgumentException if {@code size} is out of range
     */
    public static RedisLabNodes launchIn(NetworkLab lab, int size) {
        return launchIn(lab, size, "redis");
    }

    /**
     * As {@link #launchIn(NetworkLab, int)}, the nodes named {@code prefix1, prefix2, ...} (a
     * store beside a cluster of Redlock masters, say).
     *
     * @throws IllegalArgumentException if {@code size} is out of range
     */
    public static RedisLabNodes launchIn(NetworkLab lab, int size, String prefix) {
        if (size < 1 || size > 9) {
            throw new IllegalArgumentException("a Redlock lab has 1 to 9 nodes, got " + size);
        }
        List<RedisLabNode> nodes = new ArrayList<>();
        try {
            Path root = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                    "fencing-testkit")), "redis-lab-");
            for (int i = 1; i <= size; i++) {
                RedisLabNode node = new RedisLabNode(lab, prefix + i, Files.createDirectories(root.resolve(prefix + i)));
                nodes.add(node);
                node.start();
            }
            nodes.forEach(node -> node.awaitHealthy(Duration.ofSeconds(20)));
            return new RedisLabNodes(nodes);
        } catch (IOException e) {
            new RedisLabNodes(nodes).close();
            throw new UncheckedIOException("cannot make the Redis lab nodes' directories", e);
        } catch (RuntimeException e) {
            new RedisLabNodes(nodes).close();
            throw e;
        }
    }

    @Override
    public List<RedisLabNode> members() {
        return nodes;
    }

    /** Every node's {@code redis://address:6379}, for {@code RedlockProvider.builder(uris)}. */
    public List<String> uris() {
        return nodes.stream().map(RedisLabNode::uri).toList();
    }

    /** Redlock's masters are independent: none leads. */
    @Override
    public boolean electsLeader() {
        return false;
    }

    /** @throws IllegalStateException always: independent masters elect no leader */
    @Override
    public LabMember awaitLeader(Duration timeout) {
        throw new IllegalStateException("independent Redis masters elect no leader: " + describe());
    }

    @Override
    public String describe() {
        return "Redis masters " + nodes.stream().map(RedisLabNode::describe).collect(Collectors.joining("; "));
    }

    /** Kills every node; their directories go when the JVM exits. */
    @Override
    public void close() {
        for (RedisLabNode node : nodes) {
            try {
                node.kill();
            } catch (RuntimeException e) {
                // already gone
            }
        }
    }
}
