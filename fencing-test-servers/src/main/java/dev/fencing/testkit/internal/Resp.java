package dev.fencing.testkit.internal;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A minimal Redis client for the testkit's own needs (PING, FLUSHALL, DEBUG, CLIENT PAUSE): one command per connection. */
public final class Resp {

    private Resp() {}

    /**
     * Sends one command to {@code host:port} and returns the reply: a string for simple,
     * bulk and integer replies, a {@link List} for arrays, {@code null} for nil.
     *
     * @throws IllegalStateException for an error reply
     */
    public static @Nullable Object command(String host, int port, String... args) {
        return command(host, port, 30_000, args);
    }

    /**
     * As {@link #command(String, int, String...)}, giving up after {@code timeoutMillis} to
     * connect and as long again for the reply (an {@link IllegalStateException} then).
     */
    public static @Nullable Object command(String host, int port, int timeoutMillis, String... args) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), Math.min(2000, timeoutMillis));
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
            }
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException("Redis " + host + ":" + port + " did not answer " + args[0], e);
        }
    }

    private static @Nullable Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+':
            case ':':
                return line;
            case '-':
                throw new IllegalStateException("Redis error: " + line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type " + type);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed mid-reply");
            }
            bytes.write(c);
        }
        in.read();
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
