package dev.fencing.propagation.grpc;

import static dev.fencing.propagation.grpc.ItemsServer.message;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.Policy;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.testkit.LostReplies;
import dev.fencing.testkit.PropagationContract;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The propagation contract over gRPC: {@link ItemsServer} on grpc-netty (the server interceptor,
 * {@link FencingGrpc#currentToken()}, the refusal status) called through a plaintext channel with
 * {@link FencingClientInterceptor}. Lost replies are lost by {@link ReplyLosingProxy}: the server
 * acts, withholds its answer and resets the client's connection.
 */
class GrpcPropagationTest extends PropagationContract {

    /** One channel for the hand-made calls of every test: it sends only what it is given. */
    private static final ManagedChannel RAW = Grpc.newChannelBuilderForAddress("127.0.0.1", ItemsServer.port(),
            InsecureChannelCredentials.create()).build();

    @Override
    protected Downstream downstream(Policy policy) {
        return new Downstream() {
            @Override
            public FencedStore client() {
                return closeAfterTest(new GrpcItemsClient(ItemsServer.port(), policy));
            }

            @Override
            public Answer rawWrite(@Nullable String tokenHeader, String key, String value) {
                Metadata headers = new Metadata();
                if (tokenHeader != null && !tokenHeader.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)) {
                    // grpc-java would drop the value before sending it, and the call would read as MISSING
                    throw new IllegalArgumentException("an ASCII metadata value is printable ASCII only: "
                            + tokenHeader.replace("\t", "\\t"));
                }
                if (tokenHeader != null) {
                    headers.put(FencingGrpc.TOKEN_KEY, tokenHeader);
                }
                try {
                    ClientCalls.blockingUnaryCall(
                            ClientInterceptors.intercept(RAW, MetadataUtils.newAttachHeadersInterceptor(headers)),
                            ItemsServer.WRITE, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                            message(policy.name(), key, value));
                    return Answer.ACCEPTED;
                } catch (StatusRuntimeException e) {
                    Metadata trailers = e.getTrailers();
                    String refusal = trailers == null ? null : trailers.get(FencingGrpc.REFUSAL_KEY);
                    return switch (e.getStatus().getCode()) {
                        case INVALID_ARGUMENT -> Answer.MALFORMED;
                        case FAILED_PRECONDITION -> refusal == null ? Answer.MISSING
                                : refusal.startsWith("stale") ? Answer.STALE : Answer.FOREIGN;
                        default -> throw new AssertionError("unexpected answer " + e.getStatus(), e);
                    };
                }
            }

            @Override
            public Writer wrappingWriter() {
                return (token, key, value) -> send(ItemsServer.WRAPPED_WRITE, token, message(key, value));
            }

            @Override
            public Writer declaredWriter() {
                return (token, key, value) -> send(ItemsServer.DECLARED_WRITE, token, message(key, value));
            }

            @Override
            @SuppressWarnings("try") // the scope is used by the interceptor, not the block
            public Optional<FencingToken> echoWithin(@Nullable Lease lease) {
                var implicit = ClientInterceptors.intercept(RAW, FencingClientInterceptor.fromContext());
                String seen;
                if (lease == null) {
                    seen = ClientCalls.blockingUnaryCall(implicit, ItemsServer.ECHO, CallOptions.DEFAULT, "");
                } else {
                    try (FencingContext.Scope scope = FencingContext.bind(lease)) {
                        seen = ClientCalls.blockingUnaryCall(implicit, ItemsServer.ECHO, CallOptions.DEFAULT, "");
                    }
                }
                return "none".equals(seen) ? Optional.empty() : Optional.of(TokenHeader.parse(seen));
            }
        };
    }

    @Override
    protected String whyNoTabsInTokenValues() {
        return "gRPC ASCII metadata values are printable ASCII (0x20-0x7E); grpc-java drops a value with a tab"
                + " before sending it";
    }

    @Override
    protected @Nullable LostReplies lostReplies() {
        ReplyLosingProxy proxy = ReplyLosingProxy.inFrontOf(ItemsServer.port());
        return LostReplies.of(policy -> closeAfterTest(new GrpcItemsClient(proxy.port(), policy)),
                proxy::loseNextWriteReply, proxy::lost, false, proxy::close);
    }


    private static void send(io.grpc.MethodDescriptor<String, String> method, FencingToken token, String request) {
        FencingGrpc.call(() -> ClientCalls.blockingUnaryCall(ClientInterceptors.intercept(RAW,
                FencingClientInterceptor.of(token)), method, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
                request));
    }
}
