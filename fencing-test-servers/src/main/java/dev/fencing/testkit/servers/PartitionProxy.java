package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on a loopback port in front of a server, whose link can be {@link #cut} as a network
 * partition cuts it: from then on no byte passes in either direction, yet every connection stays
 * open, so each end notices only through its own timeouts (a read timeout, a missed heartbeat) —
 * not through a reset, which it would notice at once. New connections are accepted and hang
 * unanswered. {@link #heal()} closes every connection open during the cut (its bytes are lost, as
 * after a long partition) and lets new ones through again. Each connection is pumped by two daemon
 * threads.
 */
public final class PartitionProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean cut; // guarded by gate
    private long partition; // guarded by gate: how many cuts so far, so a connection knows the one it lived through

    private PartitionProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fencing-partition-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy in front of {@code host:port}, passing bytes until {@link #cut()}. */
    public static PartitionProxy start(String host, int port) {
        try {
            return new PartitionProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a proxy in front of " + host + ":" + port, e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Stops every byte in both directions, on open connections and new ones, which all stay open. */
    public void cut() {
        synchronized (gate) {
            if (!cut) {
                cut = true;
                partition++;
            }
        }
    }

    /** Closes the connections open during the cut and lets bytes, and new connections, through again. */
    public void heal() {
        List<Socket> open = List.copyOf(sockets);
        sockets.removeAll(open);
        open.forEach(PartitionProxy::closeQuietly);
        synchronized (gate) {
            cut = false;
            gate.notifyAll();
        }
    }

    /** Waits while the link is cut; false if a cut came and went meanwhile (the connection must not go on). */
    private boolean awaitPassing(long[] seen) throws InterruptedException {
        synchronized (gate) {
            if (seen[0] < 0) {
                seen[0] = partition;
            }
            while (cut) {
                gate.wait();
            }
            return partition == seen[0];
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                client.setTcpNoDelay(true);
                sockets.add(client);
                daemon(() -> connect(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void connect(Socket client) {
        long[] seen = {-1};
        try {
            awaitPassing(seen); // accepted during a cut: it hangs, and heal() closes it
            Socket server = new Socket(targetHost, targetPort);
            server.setTcpNoDelay(true);
            sockets.add(server);
            if (listener.isClosed() || client.isClosed()) {
                closeQuietly(client);
                closeQuietly(server);
                return;
            }
            daemon(() -> pump(server, client, seen[0]));
            pump(client, server, seen[0]);
        } catch (IOException | InterruptedException e) {
            closeQuietly(client);
        }
    }

    /** Copies bytes as they come, each read held while the link is cut (and dropped if it was). */
    private void pump(Socket from, Socket to, long partitionAtStart) {
        long[] seen = {partitionAtStart};
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) >= 0) {
                if (!awaitPassing(seen)) {
                    return; // the connection lived through a cut: its bytes are lost, heal() closed it
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // connection closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void daemon(Runnable pump) {
        Thread thread = new Thread(pump, "fencing-partition-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        heal(); // closes every connection and wakes the pumps held by a cut
        sockets.forEach(PartitionProxy::closeQuietly);
    }
}
