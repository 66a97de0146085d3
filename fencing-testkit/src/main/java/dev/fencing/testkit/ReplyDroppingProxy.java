package dev.fencing.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy that can lose a reply the server already sent: once {@link #dropNextReply armed},
 * the next reply bytes any server sends are swallowed, an optional hook runs (e.g. another
 * writer acting in the window), and the client connection is closed. The server has executed the
 * request; the client sees a dropped connection — "an unclear reply" — and its SDK or driver
 * may retry. Each connection is pumped by two daemon threads.
 */
public final class ReplyDroppingProxy implements AutoCloseable {

    private static final Runnable NOTHING = () -> { };

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicReference<Runnable> armed = new AtomicReference<>();
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicReference<Runnable> markedHook = new AtomicReference<>();
    private volatile @Nullable String marker;

    private ReplyDroppingProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fencing-dropping-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy in front of {@code host:port}. */
    public static ReplyDroppingProxy start(String host, int port) {
        try {
            return new ReplyDroppingProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a proxy in front of " + host + ":" + port, e);
        }
    }

    /** A proxy in front of the host and port of {@code url} ({@code http://host:port}). */
    public static ReplyDroppingProxy inFrontOf(String url) {
        URI uri = URI.create(url);
        return start(uri.getHost(), uri.getPort());
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code http://127.0.0.1:port}. */
    public String httpEndpoint() {
        return "http://127.0.0.1:" + port();
    }

    /** {@code redis://127.0.0.1:port}. */
    public String redisUri() {
        return "redis://127.0.0.1:" + port();
    }

    /** Swallows the next reply and closes its client connection. */
    public void dropNextReply() {
        dropNextReply(NOTHING);
    }

    /** Swallows the next reply, runs {@code beforeClose}, then closes its client connection. */
    public void dropNextReply(Runnable beforeClose) {
        armed.set(beforeClose);
    }

    /**
     * Swallows the reply to the next request whose bytes contain {@code marker} (ISO-8859-1), runs
     * {@code beforeClose}, then closes that client connection. Interim {@code 100 Continue} replies pass.
     */
    public void dropReplyTo(String marker, Runnable beforeClose) {
        markedHook.set(beforeClose);
        this.marker = marker;
    }

    /** How many replies were dropped so far. */
    public int dropped() {
        return dropped.get();
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
                AtomicReference<Runnable> pending = new AtomicReference<>();
                pump(client, server, false, pending);
                pump(server, client, true, pending);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, boolean replies, AtomicReference<Runnable> pending) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    String text = new String(buffer, 0, read, StandardCharsets.ISO_8859_1);
                    String wanted = marker;
                    if (!replies && wanted != null && text.contains(wanted)) {
                        Runnable hook = markedHook.getAndSet(null);
                        if (hook != null) {
                            marker = null;
                            pending.set(hook);
                        }
                    }
                    if (replies && !text.startsWith("HTTP/1.1 100")) {
                        Runnable hook = pending.getAndSet(null);
                        if (hook == null) {
                            hook = armed.getAndSet(null);
                        }
                        if (hook != null) { // the injected fault: the server acted, its reply is lost
                            dropped.incrementAndGet();
                            hook.run();
                            return;
                        }
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // connection closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "fencing-dropping-proxy-pump");
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
        sockets.forEach(ReplyDroppingProxy::closeQuietly);
    }
}
