package dev.fencing.bench;

import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * The request counts {@link CycleAccounting} reads, each from the server where it keeps one:
 * Redis's {@code total_commands_processed} (commands, a script's own included), etcd's gRPC messages received (its {@code /metrics}),
 * ZooKeeper's packets received ({@code srvr}, allowed by its default four-letter-word whitelist);
 * for DynamoDB, which keeps none that dynalite serves, the HTTP requests the SDK client sent.
 */
final class RequestCounters {

    private static final String ETCD_RECEIVED = "grpc_server_msg_received_total{";

    private RequestCounters() {}

    /**
     * Commands Redis ran, from {@code INFO stats}: the commands a script calls count too (the floor's
     * owner-checked delete is three: the {@code EVALSHA}, its {@code GET} and its {@code DEL}), so
     * this is the server's work, not the round trips. Reported as {@code commandsPerOp}.
     */
    static CycleAccounting.RequestCounter redis(RedisCommands<String, String> commands) {
        return new CycleAccounting.RequestCounter() {
            @Override
            public long requests() {
                for (String line : commands.info("stats").split("\r?\n")) {
                    if (line.startsWith("total_commands_processed:")) {
                        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                }
                throw new IllegalStateException("Redis INFO stats has no total_commands_processed");
            }

            @Override
            public String perOp() {
                return "commandsPerOp";
            }
        };
    }

    /** gRPC messages etcd at {@code endpoint} received (a unary request is one; a stream counts each). */
    static CycleAccounting.RequestCounter etcd(String endpoint) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        URI metrics = URI.create(endpoint.replaceFirst("/+$", "") + "/metrics");
        return () -> {
            HttpResponse<String> reply = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            long total = 0;
            boolean found = false;
            for (String line : reply.body().split("\n")) {
                if (line.startsWith(ETCD_RECEIVED)) {
                    total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                    found = true;
                }
            }
            if (!found) {
                throw new IllegalStateException("etcd at " + endpoint + " serves no grpc_server_msg_received_total at "
                        + metrics);
            }
            return total;
        };
    }

    /** Packets the ZooKeeper server at {@code hostAndPort} received, from its {@code srvr} answer. */
    static CycleAccounting.RequestCounter zooKeeper(String hostAndPort) {
        int colon = hostAndPort.lastIndexOf(':');
        InetSocketAddress server = new InetSocketAddress(hostAndPort.substring(0, colon),
                Integer.parseInt(hostAndPort.substring(colon + 1)));
        return () -> {
            String answer = fourLetterWord(server, "srvr");
            for (String line : answer.split("\n")) {
                if (line.startsWith("Received: ")) {
                    return Long.parseLong(line.substring("Received: ".length()).trim());
                }
            }
            throw new IllegalStateException("ZooKeeper at " + hostAndPort + " answered srvr without 'Received': "
                    + answer);
        };
    }

    private static String fourLetterWord(InetSocketAddress server, String word) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(server, 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(word.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            in.transferTo(answer);
            return answer.toString(StandardCharsets.US_ASCII);
        }
    }

    /** An SDK interceptor counting the HTTP requests its client sends (each retry too). */
    static final class SdkRequests implements ExecutionInterceptor, CycleAccounting.RequestCounter {
        private final AtomicLong sent = new AtomicLong();

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            sent.incrementAndGet();
        }

        @Override
        public long requests() {
            return sent.get();
        }
    }
}
