package dev.fencing.propagation.grpc;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.StoredValue;
import dev.fencing.propagation.CasBody;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.TokenGate;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.InMemoryStorage;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A downstream service as a team would write it with grpc-java and no generated code: unary
 * methods whose messages are strings ({@link #message}), handlers that take the caller's token from
 * {@link FencingGrpc#currentToken()} and write to their own fenced store with it.
 *
 * <ul>
 *   <li>{@value #FENCED}: Write, Delete, Cas, Peek — the interceptor requires a token; Write and
 *       Delete let the store's refusal escape (the interceptor answers it), Cas catches it and
 *       answers {@link FencingGrpc#refusal}; a changed item is answered {@code ABORTED};
 *   <li>{@value #OPEN}: Read, Mark, Echo — no token required;
 *   <li>{@value #GATED}: Echo behind a {@link TokenGate}.
 * </ul>
 *
 * <p>Every request starts with the policy's name; one server per test JVM ({@link #port()}).
 */
final class ItemsServer {

    static final String FENCED = "fencing.test.FencedItems";
    static final String OPEN = "fencing.test.Items";
    static final String GATED = "fencing.test.Gated";

    static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<String, String> WRITE = unary(FENCED, "Write");
    static final MethodDescriptor<String, String> DELETE = unary(FENCED, "Delete");
    static final MethodDescriptor<String, String> CAS = unary(FENCED, "Cas");
    static final MethodDescriptor<String, String> PEEK = unary(FENCED, "Peek");
    static final MethodDescriptor<String, String> READ = unary(OPEN, "Read");
    static final MethodDescriptor<String, String> MARK = unary(OPEN, "Mark");
    static final MethodDescriptor<String, String> ECHO = unary(OPEN, "Echo");
    static final MethodDescriptor<String, String> GATED_ECHO = unary(GATED, "Echo");
    static final String DECLARED = "fencing.test.Declared";
    /** Write(key, value) with the caller's token, behind a declaration allowing {@code billing-scheduler}. */
    static final MethodDescriptor<String, String> DECLARED_WRITE = unary(DECLARED, "Write");
    /** Write(key, value) with the caller's token, the store call made on another thread and joined. */
    static final MethodDescriptor<String, String> WRAPPED_WRITE = unary(FENCED, "WrappedWrite");
    /** What the declared service's interceptor told its listener. */
    static final dev.fencing.testkit.RecordingListener DECLARED_LISTENER = new dev.fencing.testkit.RecordingListener();
    /** A method of a service that relays, by hand, a refusal of some other token than the caller's. */
    static final MethodDescriptor<String, String> RELAY_BY_HAND = unary("fencing.test.Bare", "RelayByHand");
    /** A method whose store kept losing races. */
    static final MethodDescriptor<String, String> BUSY = unary(OPEN, "Busy");
    /**
     * A method that writes the key it is sent with the caller's token, then calls {@link #BUSY}
     * with a token of its own and passes that call's failure on with {@code onError}.
     */
    static final MethodDescriptor<String, String> RELAY_BUSY = unary(FENCED, "RelayBusy");

    /** Every policy's store over one in-memory server, as one database under two services' settings. */
    static final InMemoryStorage MEMORY = new InMemoryStorage();

    /** The store the gated service's gate writes its marks to. */
    static final FencedStore GATE_MARKS = InMemoryFencedStore.create();

    /** How many calls reached the gated handler. */
    static final AtomicInteger GATED_CALLS = new AtomicInteger();

    /** How many calls reached the fenced handlers. */
    static final AtomicInteger FENCED_CALLS = new AtomicInteger();

    private static final Map<Policy, FencedStore> STORES = new EnumMap<>(Policy.class);
    private static final Server SERVER;

    static {
        for (Policy policy : Policy.values()) {
            STORES.put(policy, InMemoryFencedStore.builder().storage(MEMORY).policy(policy).build());
        }
        ServerServiceDefinition fenced = ServerServiceDefinition.builder(FENCED)
                .addMethod(WRITE, handler(ItemsServer::write))
                .addMethod(DELETE, handler(ItemsServer::delete))
                .addMethod(CAS, ServerCalls.asyncUnaryCall(ItemsServer::cas))
                .addMethod(PEEK, handler(ItemsServer::peek))
                .addMethod(RELAY_BUSY, ServerCalls.asyncUnaryCall(ItemsServer::relayBusy))
                .addMethod(WRAPPED_WRITE, handler(request -> {
                    List<String> in = fields(request);
                    FencingToken token = requiredToken();
                    java.util.concurrent.CompletableFuture.runAsync(
                            () -> STORES.get(Policy.MONOTONIC).write(token, in.get(0), in.get(1))).join();
                    return "";
                })).build();
        ServerServiceDefinition open = ServerServiceDefinition.builder(OPEN)
                .addMethod(READ, handler(ItemsServer::read))
                .addMethod(MARK, handler(ItemsServer::mark))
                .addMethod(ECHO, handler(request -> currentToken().map(TokenHeader::format).orElse("none")))
                .addMethod(BUSY, handler(request -> {
                    throw dev.fencing.core.ConcurrentUpdateException.gaveUp("busy-item", 8);
                })).build();
        ServerServiceDefinition bare = ServerServiceDefinition.builder("fencing.test.Bare")
                .addMethod(RELAY_BY_HAND, ServerCalls.asyncUnaryCall((request, response) -> {
                    io.grpc.Metadata trailers = new io.grpc.Metadata();
                    trailers.put(io.grpc.Metadata.Key.of("fencing-refusal", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
                            "stale; token=1; lock=someone-else; key=k; mark=2; policy=MONOTONIC");
                    response.onError(Status.FAILED_PRECONDITION.asRuntimeException(trailers));
                })).build();
        ServerServiceDefinition gated = ServerServiceDefinition.builder(GATED)
                .addMethod(GATED_ECHO, handler(request -> {
                    GATED_CALLS.incrementAndGet();
                    return TokenHeader.format(requiredToken());
                })).build();
        ServerServiceDefinition declared = ServerServiceDefinition.builder(DECLARED)
                .addMethod(DECLARED_WRITE, handler(request -> {
                    List<String> in = fields(request);
                    STORES.get(Policy.MONOTONIC).write(requiredToken(), in.get(0), in.get(1));
                    return "";
                })).build();
        try {
            // the last interceptor runs first: the lost-reply fault sees the call before the fencing one
            SERVER = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .addService(ServerInterceptors.intercept(fenced,
                            FencingServerInterceptor.builder().requireToken().build(),
                            ReplyLosingProxy.losingRepliesOf(Set.of(WRITE, DELETE, CAS))))
                    .addService(ServerInterceptors.intercept(open, FencingServerInterceptor.create()))
                    .addService(bare)
                    .addService(ServerInterceptors.intercept(gated,
                            FencingServerInterceptor.builder().requireToken().gate(TokenGate.over(GATE_MARKS)).build()))
                    .addService(ServerInterceptors.intercept(declared, FencingServerInterceptor.builder().requireToken()
                            .allowedLocks(dev.fencing.propagation.AllowedLocks.of("billing-scheduler"))
                            .listener(DECLARED_LISTENER).gate(TokenGate.over(GATE_MARKS)).build()))
                    .build().start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ItemsServer() {}

    /** What the service's store holds under {@code key}. */
    static Optional<dev.fencing.core.StoredValue> stored(String key) {
        return STORES.get(Policy.MONOTONIC).read(key);
    }

    /** The port the server listens on, on 127.0.0.1. */
    static int port() {
        return SERVER.getPort();
    }

    private static MethodDescriptor<String, String> unary(String service, String method) {
        return MethodDescriptor.newBuilder(UTF8, UTF8).setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, method)).build();
    }

    /** A unary method answering what {@code handler} returns; what it throws escapes to the interceptors. */
    private static io.grpc.ServerCallHandler<String, String> handler(Function<String, String> handler) {
        return ServerCalls.asyncUnaryCall((request, response) -> {
            String answer = handler.apply(request);
            response.onNext(answer);
            response.onCompleted();
        });
    }

    private static Optional<FencingToken> currentToken() {
        return FencingGrpc.currentToken();
    }

    private static FencingToken requiredToken() {
        return FencingGrpc.currentToken().orElseThrow(() -> new MissingTokenException("this method"));
    }

    private static void relayBusy(String key, StreamObserver<String> response) {
        STORES.get(Policy.MONOTONIC).write(requiredToken(), key, "mine");
        io.grpc.ManagedChannel self = io.grpc.Grpc.newChannelBuilderForAddress("127.0.0.1", port(),
                io.grpc.InsecureChannelCredentials.create()).build();
        try {
            io.grpc.stub.ClientCalls.blockingUnaryCall(io.grpc.ClientInterceptors.intercept(self,
                    FencingClientInterceptor.of(FencingToken.of(key + "-own-lock", 1))), BUSY, io.grpc.CallOptions.DEFAULT, "x");
            response.onNext("");
            response.onCompleted();
        } catch (io.grpc.StatusRuntimeException e) {
            response.onError(e);   // the common idiom: pass the downstream's failure on
        } finally {
            self.shutdownNow();
        }
    }

    private static String write(String request) {
        FENCED_CALLS.incrementAndGet();
        List<String> in = fields(request);
        STORES.get(Policy.valueOf(in.get(0))).write(requiredToken(), in.get(1), in.get(2));
        return "";
    }

    private static String delete(String request) {
        FENCED_CALLS.incrementAndGet();
        List<String> in = fields(request);
        STORES.get(Policy.valueOf(in.get(0))).delete(requiredToken(), in.get(1));
        return "";
    }

    /** Compare-and-set: answers the written token, {@code ABORTED} if the item changed. */
    private static void cas(String request, StreamObserver<String> response) {
        FENCED_CALLS.incrementAndGet();
        List<String> in = fields(request);
        CasBody cas = CasBody.decode(in.get(2));
        StoredValue written;
        try {
            written = STORES.get(Policy.valueOf(in.get(0))).update(requiredToken(), in.get(1), current -> {
                if (!current.equals(cas.expected())) {
                    throw new CasBody.Changed();
                }
                return cas.next();
            });
        } catch (CasBody.Changed changed) {
            response.onError(Status.ABORTED.withDescription(changed.getMessage()).asRuntimeException());
            return;
        } catch (StaleTokenException | ForeignTokenException refused) {
            response.onError(FencingGrpc.refusal(refused));
            return;
        }
        response.onNext(Long.toString(written.token()));
        response.onCompleted();
    }

    /** The value for a read-modify-write: a read that checks the caller's token like a write would. */
    private static String peek(String request) {
        FENCED_CALLS.incrementAndGet();
        List<String> in = fields(request);
        try {
            STORES.get(Policy.valueOf(in.get(0))).update(requiredToken(), in.get(1), current -> {
                throw new CasBody.Peeked(current);
            });
            throw new IllegalStateException("update returned without applying the change");
        } catch (CasBody.Peeked peeked) {
            return peeked.value().map(v -> message(v)).orElse(message());
        }
    }

    private static String read(String request) {
        List<String> in = fields(request);
        return STORES.get(Policy.valueOf(in.get(0))).read(in.get(1))
                .map(v -> message(v.value(), Long.toString(v.token()))).orElse(message());
    }

    private static String mark(String request) {
        List<String> in = fields(request);
        var mark = STORES.get(Policy.valueOf(in.get(0))).highWaterMark(in.get(1));
        return mark.isPresent() ? message(Long.toString(mark.getAsLong())) : message();
    }

    /** Strings as one message: each as its length, ':' and itself. */
    static String message(String... values) {
        StringBuilder out = new StringBuilder();
        for (String value : values) {
            out.append(value.length()).append(':').append(value);
        }
        return out.toString();
    }

    /** The strings of {@link #message(String...)}. */
    static List<String> fields(String message) {
        List<String> out = new ArrayList<>();
        int at = 0;
        while (at < message.length()) {
            int colon = message.indexOf(':', at);
            int length = Integer.parseInt(message.substring(at, colon));
            out.add(message.substring(colon + 1, colon + 1 + length));
            at = colon + 1 + length;
        }
        return out;
    }
}
