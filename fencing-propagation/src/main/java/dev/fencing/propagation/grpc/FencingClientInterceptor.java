package dev.fencing.propagation.grpc;

import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Sends the caller's token with every call of a gRPC channel, in the metadata key
 * {@value TokenHeader#GRPC_KEY} ({@link TokenHeader#format}), and marks a fenced service's refusal.
 *
 * <p>The token sent is, first found: a {@value TokenHeader#GRPC_KEY} value the call's headers
 * already have (left as it is), the call option {@link #TOKEN_OPTION}
 * ({@code stub.withOption(FencingClientInterceptor.TOKEN_OPTION, token)}), the fixed token of
 * {@link #of(FencingToken)}, or the token bound by {@link FencingContext} on the thread that starts
 * the call (for a blocking or async stub, the caller's). With none of them, nothing is attached.
 *
 * <p>A call closed with the {@value dev.fencing.propagation.TokenRefusal#GRPC_KEY}
 * trailer gets the store's exception ({@link dev.fencing.core.StaleTokenException},
 * {@link dev.fencing.core.ForeignTokenException}, {@code ConcurrentUpdateException},
 * {@code WriteOutcomeUnknownException}) rebuilt as its status's cause: a blocking stub
 * still throws {@link io.grpc.StatusRuntimeException}, whose cause it is. Wrap the call in
 * {@link FencingGrpc#call} to have the store's exception thrown instead.
 *
 * <pre>{@code
 * Channel channel = ClientInterceptors.intercept(managedChannel, FencingClientInterceptor.fromContext());
 * }</pre>
 */
public final class FencingClientInterceptor implements ClientInterceptor {

    /** The call option that names the token for one call; it wins over the fixed and bound ones. */
    public static final CallOptions.Key<FencingToken> TOKEN_OPTION = CallOptions.Key.create(TokenHeader.GRPC_KEY);

    private final @Nullable FencingToken fixed;
    private final FencingListener listener;

    private FencingClientInterceptor(@Nullable FencingToken fixed, FencingListener listener) {
        this.fixed = fixed;
        this.listener = listener;
    }

    /** Attaches the token bound by {@link FencingContext} on the thread that starts the call, if any. */
    public static FencingClientInterceptor fromContext() {
        return new FencingClientInterceptor(null, FencingListener.NONE);
    }

    /** This interceptor, telling {@code listener} of every refusal it turns back into the store's exception. */
    public FencingClientInterceptor listener(FencingListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null; use FencingListener.NONE for none");
        }
        return new FencingClientInterceptor(fixed, listener);
    }

    /** Attaches {@code token} to every call (a channel built for one critical section). */
    public static FencingClientInterceptor of(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return new FencingClientInterceptor(token, FencingListener.NONE);
    }

    @Override
    public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
            CallOptions callOptions, Channel next) {
        @Nullable FencingToken explicit = callOptions.getOption(TOKEN_OPTION);
        return new ForwardingClientCall.SimpleForwardingClientCall<ReqT, RespT>(next.newCall(method, callOptions)) {
            @Override
            public void start(Listener<RespT> responseListener, Metadata headers) {
                if (!headers.containsKey(FencingGrpc.TOKEN_KEY)) {
                    tokenFor(explicit).ifPresent(token -> headers.put(FencingGrpc.TOKEN_KEY, TokenHeader.format(token)));
                }
                super.start(new RefusalListener<>(responseListener, listener, headers.get(FencingGrpc.TOKEN_KEY)), headers);
            }
        };
    }

    private Optional<FencingToken> tokenFor(@Nullable FencingToken explicit) {
        if (explicit != null) {
            return Optional.of(explicit);
        }
        return fixed != null ? Optional.of(fixed) : FencingContext.currentToken();
    }

    /** Gives a refusal's status the store's exception as its cause. */
    private static final class RefusalListener<RespT>
            extends ForwardingClientCallListener.SimpleForwardingClientCallListener<RespT> {

        private final FencingListener listener;
        private final @Nullable String sentHeader;

        RefusalListener(ClientCall.Listener<RespT> delegate, FencingListener listener, @Nullable String sentHeader) {
            super(delegate);
            this.listener = listener;
            this.sentHeader = sentHeader;
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            Status closed = status;
            if (status.getCause() == null) {
                @Nullable String value = status.isOk() || trailers == null ? null : trailers.get(FencingGrpc.REFUSAL_KEY);
                Optional<FencingException> refusal =
                        value == null ? Optional.empty() : TokenRefusal.readFor(value, sentHeader);
                if (refusal.isPresent()) {
                    closed = status.withCause(TokenRefusal.reported(refusal.get(), listener));
                } else if (trailers != null) {
                    // not this call's refusal (or not one at all): nothing after this interceptor,
                    // such as FencingGrpc.call, may rebuild it from the trailer
                    trailers.discardAll(FencingGrpc.REFUSAL_KEY);
                }
            }
            super.onClose(closed, trailers);
        }
    }
}
