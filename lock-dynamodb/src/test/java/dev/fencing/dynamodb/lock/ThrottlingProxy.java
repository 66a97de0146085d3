package dev.fencing.dynamodb.lock;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP proxy in front of a DynamoDB endpoint that answers every request with DynamoDB's
 * {@code 400 ProvisionedThroughputExceededException} for a while ({@link #throttleFor}), as a table
 * over its capacity does, and passes requests on otherwise. A throttled request never reaches the
 * server.
 */
final class ThrottlingProxy implements AutoCloseable {

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "content-length", "host", "transfer-encoding",
            "expect", "upgrade", "keep-alive");
    private static final byte[] THROTTLED = ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#"
            + "ProvisionedThroughputExceededException\",\"message\":\"The level of configured provisioned throughput for"
            + " the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.\"}")
            .getBytes(StandardCharsets.UTF_8);

    private final HttpServer server;
    private final URI target;
    private final HttpClient forward = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final AtomicLong throttledUntil = new AtomicLong(System.nanoTime());
    private final AtomicInteger throttled = new AtomicInteger();

    private ThrottlingProxy(String target) throws IOException {
        this.target = URI.create(target);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "throttling-proxy");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    /** A proxy in front of {@code target} ({@code http://host:port}), passing everything on until told. */
    static ThrottlingProxy inFrontOf(String target) {
        try {
            return new ThrottlingProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code http://127.0.0.1:port}. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Answers every request "throttled" from now for {@code burst}. */
    void throttleFor(Duration burst) {
        throttledUntil.set(System.nanoTime() + burst.toNanos());
    }

    /** How many requests were answered "throttled". */
    int throttled() {
        return throttled.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (System.nanoTime() - throttledUntil.get() < 0) {
                throttled.incrementAndGet();
                exchange.getResponseHeaders().set("Content-Type", "application/x-amz-json-1.0");
                exchange.getResponseHeaders().set("x-amzn-ErrorType", "ProvisionedThroughputExceededException");
                exchange.sendResponseHeaders(400, THROTTLED.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(THROTTLED);
                }
                return;
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(target.resolve(exchange.getRequestURI()))
                    .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body))
                    .timeout(Duration.ofSeconds(30));
            exchange.getRequestHeaders().forEach((name, values) -> {
                if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                    values.forEach(value -> request.header(name, value));
                }
            });
            HttpResponse<byte[]> response;
            try {
                response = forward.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            response.headers().map().forEach((name, values) -> {
                if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] answer = response.body();
            exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
