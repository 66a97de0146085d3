package dev.fencing.testkit.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server that accepts TCP connections, reads and discards what it is sent, and never answers:
 * the "silent server" (a hung process, a black-holing middlebox) that a client's connect and
 * first-reply bounds must give up on. Every connection is read by a daemon thread; {@link #close}
 * closes the listener and every accepted connection.
 */
public final class SilentServer implements AutoCloseable {

    private final ServerSocket listener;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    private SilentServer() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept, "fencing-silent-server-" + listener.getLocalPort());
    }

    /** A silent server on a free loopback port. */
    public static SilentServer start() {
        try {
            return new SilentServer();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a silent server socket", e);
        }
    }

    /** The loopback port it listens on. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code 127.0.0.1:port}. */
    public String hostPort() {
        return "127.0.0.1:" + port();
    }

    /** How many connections it accepted so far. */
    public int connections() {
        return accepted.size();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                accepted.add(socket);
                daemon(() -> discard(socket), "fencing-silent-reader-" + socket.getPort());
            } catch (IOException closed) {
                return;
            }
        }
    }

    private static void discard(Socket socket) {
        byte[] sink = new byte[8192];
        try (InputStream in = socket.getInputStream()) {
            while (in.read(sink) >= 0) {
                // read and forget: the client's request is never answered
            }
        } catch (IOException closed) {
            // the client or close() ended the connection
        }
    }

    private static void daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : accepted) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
