package dev.fencing.testkit.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP proxy on a loopback port that forwards everything to {@code target} and lets only one
 * request per path through at a time: an atomic arbiter of conditional writes ({@code If-Match} /
 * {@code If-None-Match}) in front of a server that does not arbitrate them itself (S3Mock), and
 * atomic object replacement as S3 has it — S3Mock writes an object's bytes and its metadata
 * separately, so a concurrent GET could return the new bytes with the old metadata (seen: a
 * tombstone's body read as a value with the previous token). Requests on different paths pass
 * through concurrently. It also refuses {@code If-None-Match: *} on a multipart completion over
 * an existing object with 412, as S3 does and S3Mock does not.
 *
 * <p>{@link #startIgnoringConditions} starts one that also drops {@code If-Match} and
 * {@code If-None-Match} from every request: a server that ignores conditional writes, as some
 * S3-compatible servers and gateways do (S3Proxy 2.6, older MinIO).
 */
public final class SerializingProxy implements AutoCloseable {

    private static final Set<String> NOT_FORWARDED = Set.of("host", "content-length", "connection", "expect", "upgrade",
            "transfer-encoding", "keep-alive");

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "fencing-serializing-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();
    private final String target;
    private final Set<String> dropped;

    private SerializingProxy(String target, Set<String> dropped) throws IOException {
        this.target = target;
        this.dropped = dropped;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/", this::forward);
        server.setExecutor(executor);
        server.start();
    }

    /** Starts a proxy in front of {@code target} ({@code http://host:port}). */
    public static SerializingProxy start(String target) {
        return start(target, Set.of());
    }

    /** Starts a proxy in front of {@code target} that drops every request's conditions. */
    public static SerializingProxy startIgnoringConditions(String target) {
        return start(target, Set.of("if-match", "if-none-match"));
    }

    private static SerializingProxy start(String target, Set<String> dropped) {
        try {
            return new SerializingProxy(target, dropped);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the serializing proxy", e);
        }
    }

    /** {@code http://127.0.0.1:port} of the proxy. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void forward(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            byte[] body = exchange.getRequestBody().readAllBytes();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target + uri.getRawPath()
                    + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())))
                    .timeout(Duration.ofSeconds(60))
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, List<String>> header : exchange.getRequestHeaders().entrySet()) {
                String name = header.getKey().toLowerCase(Locale.ROOT);
                if (!NOT_FORWARDED.contains(name) && !dropped.contains(name)) {
                    header.getValue().forEach(value -> request.header(header.getKey(), value));
                }
            }
            boolean createOnly = "*".equals(exchange.getRequestHeaders().getFirst("If-None-Match"))
                    && !dropped.contains("if-none-match");
            boolean completion = method.equals("POST") && uri.getRawQuery() != null
                    && uri.getRawQuery().contains("uploadId=");
            HttpResponse<byte[]> response = serialized(uri.getRawPath(), request.build(),
                    createOnly && completion ? URI.create(target + uri.getRawPath()) : null);
            if (response == null) {
                byte[] refused = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>PreconditionFailed</Code>"
                        + "<Message>At least one of the pre-conditions you specified did not hold</Message>"
                        + "<Condition>If-None-Match</Condition></Error>").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/xml");
                exchange.sendResponseHeaders(412, refused.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(refused);
                }
                return;
            }
            response.headers().map().forEach((name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
                    exchange.getResponseHeaders().put(name, values);
                }
            });
            byte[] responseBody = response.body();
            boolean noBody = method.equals("HEAD") || responseBody.length == 0;
            exchange.sendResponseHeaders(response.statusCode(), noBody ? -1 : responseBody.length);
            if (!noBody) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(responseBody);
                }
            }
        }
    }

    /**
     * Sends {@code request} alone on its path; null, without sending it, if {@code mustNotExist} is
     * given and an object is there (S3Mock ignores {@code If-None-Match: *} on
     * {@code CompleteMultipartUpload}; S3 refuses it with 412, and so does this proxy).
     */
    private @Nullable HttpResponse<byte[]> serialized(String path, HttpRequest request,
            @Nullable URI mustNotExist) throws IOException {
        ReentrantLock lock = locks.computeIfAbsent(path, p -> new ReentrantLock());
        lock.lock();
        try {
            if (mustNotExist != null && send(HttpRequest.newBuilder(mustNotExist).timeout(Duration.ofSeconds(60))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build()).statusCode() == 200) {
                return null;
            }
            return send(request);
        } finally {
            lock.unlock();
        }
    }

    private HttpResponse<byte[]> send(HttpRequest request) throws IOException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while forwarding", e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
