package dev.fencing.testkit.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Free loopback ports, and waiting for a port to accept connections. */
public final class Ports {

    private Ports() {}

    /**
     * The ports handed out in this JVM: the kernel may give a port it just closed again, and two
     * members of one cluster asked for ports in a row got the same one ("has duplicate url").
     */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * The ports below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}), from
     * 10000 on, or null when that range starts too low to leave room. A port the kernel hands out
     * for {@code bind(0)} comes from the ephemeral range, where every outgoing connection of every
     * process on the machine takes its local port too: a server started on it a moment later found
     * it "taken" by some client's connection (gate 58: an etcd member of a CLI child, while the
     * nemesis runs' clients were busy). Ports below that range are never given to connections.
     */
    private static final int @Nullable [] QUIET_RANGE = quietRange();

    private static int @Nullable [] quietRange() {
        try {
            String[] bounds = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim().split("\\s+");
            int low = Integer.parseInt(bounds[0]);
            return low > 12_000 ? new int[] {10_000, low - 1} : null;
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: the kernel's choice, as before (readAllLines: a /proc file
            // says its size is 0, and Files.readString stopped after one byte)
            return null;
        }
    }

    /**
     * A port that was free on 127.0.0.1 a moment ago, and not handed out before in this JVM: one
     * drawn at random below the kernel's ephemeral range when there is room, where no outgoing
     * connection takes a port, else one the kernel picks.
     */
    public static int free() {
        int[] range = QUIET_RANGE;
        if (range != null) {
            java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
            for (int attempt = 0; attempt < 200; attempt++) {
                int port = range[0] + random.nextInt(range[1] - range[0] + 1);
                if (!HANDED_OUT.contains(port) && isBindable(port) && HANDED_OUT.add(port)) {
                    return port;
                }
            }
        }
        for (int attempt = 0; attempt < 100; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("no free loopback port", e);
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("100 free loopback ports in a row were ones this JVM had handed out before");
    }

    /**
     * A free port {@code p} as {@link #free()}, such that {@code p + offset} is a port too (at most
     * 65535) and was free a moment ago; both are marked handed out. A Redis Cluster node listens on
     * its port + 10000 for the cluster bus, and a node given a port above 55535 exits after its
     * client port opened ("Redis port number too high"): about one port in five of Linux's
     * ephemeral range.
     */
    public static int freeWithCompanion(int offset) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = free();
            int companion = port + offset;
            if (companion <= 65535 && isBindable(companion) && HANDED_OUT.add(companion)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free loopback port p with p + " + offset + " free too in 100 tries");
    }

    private static boolean isBindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether something accepts TCP connections on 127.0.0.1:{@code port}. */
    public static boolean isOpen(int port) {
        return isOpen("127.0.0.1", port);
    }

    /** Whether something accepts TCP connections on {@code host:port}. */
    public static boolean isOpen(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 200);
            // a port in the ephemeral range can connect to itself (TCP simultaneous open) when the kernel gives
            // this socket that same port: that says nothing about a listener
            return socket.getLocalPort() != port;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until {@code port} accepts connections, or throws after {@code timeout}. */
    public static void awaitOpen(int port, Duration timeout, Process process, String what) {
        awaitOpen("127.0.0.1", port, timeout, process, what);
    }

    /** Waits until {@code host:port} accepts connections, or throws after {@code timeout}. */
    public static void awaitOpen(String host, int port, Duration timeout, Process process, String what) {
        awaitCondition(what, timeout, () -> {
            if (process != null && !process.isAlive()) {
                throw new IllegalStateException(what + " exited with code " + process.exitValue()
                        + " before it listened on port " + port);
            }
            return isOpen(host, port);
        }, () -> what + " did not listen on " + host + ":" + port + " within " + timeout);
    }

    /**
     * Polls {@code done} every 20 ms until it holds; throws {@link IllegalStateException} with
     * {@code failure}'s message after {@code timeout} (the testkit's servers are started before
     * Awaitility is on anyone's class path, so it has a loop of its own).
     */
    public static void awaitCondition(String what, Duration timeout, BooleanSupplier done, Supplier<String> failure) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new IllegalStateException(failure.get());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
