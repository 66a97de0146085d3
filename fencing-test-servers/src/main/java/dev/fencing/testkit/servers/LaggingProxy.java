package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a loopback port in front of a server whose replies can be held back: requests
 * go through at once and are executed, replies arrive {@link #lagReplies late}, or not before
 * the test lets them {@link #holdReplies pass}. That is how a test makes a client give up on a
 * node that did the work — "the SET was applied but the reply was lost" — or adds a round trip's
 * time to every request, as a server on another host would. Each connection is pumped by three
 * daemon threads: requests, and replies read and written.
 */
public final class LaggingProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile long replyLagNanos;
    private final Object gate = new Object();
    private boolean holding; // guarded by gate

    private LaggingProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fencing-lagging-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy in front of {@code host:port}. */
    public static LaggingProxy start(String host, int port) {
        try {
            return new LaggingProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a proxy in front of " + host + ":" + port, e);
        }
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code redis://127.0.0.1:port}, for a Redis behind the proxy. */
    public String redisUri() {
        return "redis://127.0.0.1:" + port();
    }

    /**
     * Holds every reply from now on back for {@code lag} (zero: pass replies at once), which adds
     * {@code lag} to each round trip through the proxy. Below a millisecond the hold is a timed
     * park: the operating system's timer adds some tens of microseconds to it.
     */
    public void lagReplies(Duration lag) {
        if (lag.isNegative()) {
            throw new IllegalArgumentException("lag must not be negative, got " + lag);
        }
        this.replyLagNanos = lag.toNanos();
    }

    /**
     * Holds every reply from now on until {@link #passReplies()}: requests still reach the server
     * and are executed, but no byte comes back, on open connections and on new ones (whose
     * handshake replies are held too). A client that closes its connection meanwhile closes the
     * proxy's link to the server with it, and the replies held for that connection are dropped:
     * a late reply never arrives on a connection its client abandoned.
     */
    public void holdReplies() {
        synchronized (gate) {
            holding = true;
        }
    }

    /** Lets the held replies, and every reply from now on, pass (after any {@link #lagReplies lag}). */
    public void passReplies() {
        synchronized (gate) {
            holding = false;
            gate.notifyAll();
        }
    }

    private void awaitPassing() throws InterruptedException {
        synchronized (gate) {
            while (holding) {
                gate.wait();
            }
        }
    }

    /**
     * Closes every connection open through the proxy now, dropping the replies it holds back: the
     * client sees its connection reset after the server may have acted. New connections still work.
     */
    public void dropConnections() {
        List<Socket> open = List.copyOf(sockets);
        sockets.removeAll(open);
        open.forEach(LaggingProxy::closeQuietly);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                if (listener.isClosed()) { // accepted while close() ran: it may have missed these two
                    closeQuietly(client);
                    closeQuietly(server);
                    return;
                }
                pump(client, server);
                pumpReplies(server, client);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Copies requests to the server as they come. */
    private void pump(Socket from, Socket to) {
        daemon(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // connection closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    /**
     * Copies replies to the client, each held until the lag set when it arrived has passed since
     * its arrival: a delay line, so replies that follow each other closely (pipelined commands, the
     * late replies of a round already decided) are held at once, not one after the other.
     */
    private void pumpReplies(Socket from, Socket to) {
        BlockingQueue<Held> line = new LinkedBlockingQueue<>();
        daemon(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    line.add(new Held(Arrays.copyOf(buffer, read), System.nanoTime() + replyLagNanos));
                }
            } catch (IOException e) {
                // connection closed
            } finally {
                line.add(Held.END);
            }
        });
        daemon(() -> {
            try (OutputStream out = to.getOutputStream()) {
                for (Held reply = line.take(); reply != Held.END; reply = line.take()) {
                    awaitPassing();
                    holdUntil(reply.dueNanos()); // the injected fault or round trip: this reply arrives late
                    out.write(reply.bytes());
                    if (line.isEmpty()) {
                        out.flush();
                    }
                }
            } catch (IOException | InterruptedException e) {
                // connection closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    /** Bytes of a reply and when they may go on to the client. */
    private record Held(byte[] bytes, long dueNanos) {
        static final Held END = new Held(new byte[0], 0);
    }

    private static void daemon(Runnable pump) {
        Thread thread = new Thread(pump, "fencing-lagging-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void holdUntil(long dueNanos) throws InterruptedException {
        for (long left = dueNanos - System.nanoTime(); left > 0; left = dueNanos - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException("proxy closed while holding a reply");
            }
        }
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
        sockets.forEach(LaggingProxy::closeQuietly);
        passReplies(); // held replies go nowhere now: their writers find their sockets closed and end
    }
}
