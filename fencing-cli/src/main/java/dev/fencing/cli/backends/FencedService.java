package dev.fencing.cli.backends;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StoredValue;
import dev.fencing.propagation.MalformedTokenException;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.TokenGate;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A downstream service on loopback, as another team would run it: the CLI's demo and bench call it
 * over HTTP with the token in {@value TokenHeader#HTTP_HEADER}. {@code PUT /fenced?key=K} writes
 * the body through the run's fenced store with the caller's token (refusals answered 409 with
 * {@link TokenRefusal#HTTP_HEADER}, a missing token 428, a malformed one 400); {@code PUT /gated}
 * admits the token through a {@link TokenGate} over the fenced store, then writes unfenced;
 * {@code PUT /plain} writes unfenced; {@code GET} on each reads. {@code PUT /plain-twice} writes
 * the body unfenced twice, under the key and under the key with {@code .copy} appended: as many
 * store requests as a gated {@code PUT}, with no token. {@code PUT /plain-marked} makes the one fenced
 * write a gate makes per admission, with a token the service counts itself (nothing on the wire, no
 * header to parse, no mark key to derive), then writes the body unfenced: the bench's floor for a
 * gate. Built on the JDK's own HTTP
 * server with the propagation module's wire format, so it shows the protocol without a framework.
 */
public final class FencedService implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads;
    private final FencedStore fenced;
    private final PlainStore plain;
    private final TokenGate gate;
    private final Map<String, AtomicLong> floorTokens = new ConcurrentHashMap<>();

    private FencedService(HttpServer server, ExecutorService threads, FencedStore fenced, PlainStore plain) {
        this.server = server;
        this.threads = threads;
        this.fenced = fenced;
        this.plain = plain;
        this.gate = TokenGate.over(fenced);
    }

    /** Starts the service on a free loopback port, over {@code backends}'s storage. */
    public static FencedService start(Backends backends) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            ExecutorService threads = Executors.newFixedThreadPool(16, r -> {
                Thread thread = new Thread(r, "fenced-service");
                thread.setDaemon(true);
                return thread;
            });
            FencedService service = new FencedService(server, threads, backends.store(Policy.MONOTONIC),
                    backends.plainStore());
            server.createContext("/", service::handle);
            server.setExecutor(threads);
            server.start();
            return service;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the demo service on loopback", e);
        }
    }

    /** {@code http://127.0.0.1:PORT}. */
    public String url() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String key = key(exchange);
            if (key.startsWith(TokenGate.KEY_PREFIX)) {
                // the gate's marks live in the same store: a data key there could bind a mark to another lock
                byte[] message = ("keys under " + TokenGate.KEY_PREFIX + " are the gate's").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(400, message.length);
                exchange.getResponseBody().write(message);
                return;
            }
            boolean put = exchange.getRequestMethod().equals("PUT");
            String body = put ? new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8) : "";
            try {
                switch (path) {
                    case "/fenced" -> {
                        if (put) {
                            fenced.write(token(exchange), key, body);
                        } else {
                            reply(exchange, fenced.read(key));
                            return;
                        }
                    }
                    case "/gated" -> {
                        gate.admit(token(exchange));
                        plain.write(key, body);
                    }
                    case "/plain-twice" -> {
                        if (!put) {
                            exchange.sendResponseHeaders(405, -1);
                            return;
                        }
                        plain.write(key + ".copy", body);
                        plain.write(key, body);
                    }
                    case "/plain-marked" -> {
                        if (!put) {
                            exchange.sendResponseHeaders(405, -1);
                            return;
                        }
                        // a counter per key: one caller per key, as the bench's workers are, is never refused
                        long token = floorTokens.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
                        fenced.write(FencingToken.of("floor/" + key, token), TokenGate.KEY_PREFIX + "floor/" + key,
                                "admitted");
                        plain.write(key, body);
                    }
                    case "/plain" -> {
                        if (put) {
                            plain.write(key, body);
                        } else {
                            reply(exchange, plain.read(key).map(v -> new StoredValue(key, v, 0)));
                            return;
                        }
                    }
                    default -> {
                        exchange.sendResponseHeaders(404, -1);
                        return;
                    }
                }
                exchange.sendResponseHeaders(204, -1);
            } catch (RuntimeException e) {
                RuntimeException refusal = TokenRefusal.find(e);
                if (refusal == null) {
                    byte[] message = String.valueOf(e).getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(500, message.length);
                    exchange.getResponseBody().write(message);
                    return;
                }
                byte[] problem = TokenRefusal.problemJson(refusal).getBytes(StandardCharsets.UTF_8);
                TokenRefusal.header(refusal).ifPresent(v -> exchange.getResponseHeaders().set(TokenRefusal.HTTP_HEADER, v));
                exchange.getResponseHeaders().set("Content-Type", TokenRefusal.PROBLEM_MEDIA_TYPE);
                exchange.sendResponseHeaders(TokenRefusal.httpStatus(refusal), problem.length);
                exchange.getResponseBody().write(problem);
            }
        }
    }

    private static FencingToken token(HttpExchange exchange) {
        List<String> values = exchange.getRequestHeaders().get(TokenHeader.HTTP_HEADER);
        if (values == null || values.isEmpty()) {
            throw new MissingTokenException(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
        }
        if (values.size() > 1) {
            throw new MalformedTokenException(TokenHeader.HTTP_HEADER + " was sent "
                    + values.size() + " times");
        }
        return TokenHeader.parse(values.get(0));
    }

    private static String key(HttpExchange exchange) {
        String query = Optional.ofNullable(exchange.getRequestURI().getRawQuery()).orElse("");
        return query.startsWith("key=") ? URLDecoder.decode(query.substring(4), StandardCharsets.UTF_8) : "";
    }

    private static void reply(HttpExchange exchange, Optional<StoredValue> value) throws IOException {
        if (value.isEmpty()) {
            exchange.sendResponseHeaders(404, -1);
            return;
        }
        byte[] body = value.get().value().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Item-Token", Long.toString(value.get().token()));
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
