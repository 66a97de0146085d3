package dev.fencing.redis;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny RESP2 server on a loopback port that claims to be an old Redis: enough of a handshake for
 * Lettuce ({@code HELLO} refused, so the client falls back to RESP2; {@code PING}, {@code CLIENT},
 * {@code SELECT}, {@code AUTH} answered OK) and an {@code INFO} whose reply reports
 * {@code redis_version}; every other command gets an error. Records each command's name, so a
 * test can show what the client sent. One daemon thread per connection.
 */
final class FakeRedisServer implements AutoCloseable {

    private final ServerSocket listener;
    private final String version;
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private FakeRedisServer(String version) throws IOException {
        this.version = version;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept);
    }

    /** A fake server that reports {@code redis_version:<version>} in {@code INFO}. */
    static FakeRedisServer reportingVersion(String version) {
        try {
            return new FakeRedisServer(version);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a port for the fake Redis server", e);
        }
    }

    String uri() {
        return "redis://127.0.0.1:" + listener.getLocalPort();
    }

    /** The commands received so far, each as its name and first argument. */
    List<String> received() {
        return List.copyOf(received);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                sockets.add(socket);
                daemon(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket; InputStream in = new BufferedInputStream(socket.getInputStream());
                OutputStream out = socket.getOutputStream()) {
            for (List<String> command = readCommand(in); command != null; command = readCommand(in)) {
                String name = command.isEmpty() ? "" : command.get(0).toUpperCase(Locale.ROOT);
                received.add(command.size() > 1 ? name + " " + command.get(1) : name);
                out.write(reply(name).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            // the client closed the connection
        }
    }

    private String reply(String command) {
        switch (command) {
            case "PING":
                return "+PONG\r\n";
            case "CLIENT", "SELECT", "AUTH":
                return "+OK\r\n";
            case "INFO":
                String info = "# Server\r\nredis_version:" + version + "\r\nredis_mode:standalone\r\n";
                return "$" + info.getBytes(StandardCharsets.UTF_8).length + "\r\n" + info + "\r\n";
            default:
                return "-ERR unknown command '" + command + "' (fake Redis " + version + ")\r\n";
        }
    }

    /** One command: an array of bulk strings; null at the end of the stream. */
    private static List<String> readCommand(InputStream in) throws IOException {
        String header = readLine(in);
        if (header == null) {
            return null;
        }
        if (!header.startsWith("*")) {
            return List.of(header.trim().split(" ")); // an inline command
        }
        int count = Integer.parseInt(header.substring(1));
        List<String> parts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String length = readLine(in);
            if (length == null || !length.startsWith("$")) {
                throw new IOException("expected a bulk string, got " + length);
            }
            byte[] bytes = in.readNBytes(Integer.parseInt(length.substring(1)) + 2); // with its CRLF
            parts.add(new String(bytes, 0, Math.max(0, bytes.length - 2), StandardCharsets.UTF_8));
        }
        return parts;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b >= 0; b = in.read()) {
            if (b == '\n') {
                int end = line.length();
                return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
            }
            line.append((char) b);
        }
        return null;
    }

    private static void daemon(Runnable task) {
        Thread thread = new Thread(task, "fake-redis-server");
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
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
