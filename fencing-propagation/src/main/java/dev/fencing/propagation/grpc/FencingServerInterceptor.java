package dev.fencing.propagation.grpc;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.AllowedLocks;
import dev.fencing.propagation.MalformedTokenException;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.TokenGate;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A gRPC server interceptor that reads the caller's {@value TokenHeader#GRPC_KEY} metadata, hands
 * it to the handler ({@link FencingGrpc#currentToken()}) and answers refusals:
 *
 * <ul>
 *   <li>a malformed value, or more than one: {@code INVALID_ARGUMENT}, before the handler runs;
 *   <li>no value, when {@link Builder#requireToken()} is set: {@code FAILED_PRECONDITION}, before
 *       the handler runs;
 *   <li>a token of a lock the {@link Builder#allowedLocks declaration} does not name for the
 *       method (its full name, {@code package.Service/Method}): {@code FAILED_PRECONDITION} with
 *       the {@value TokenRefusal#GRPC_KEY} trailer ({@code foreign}), before the gate and the
 *       handler run;
 *   <li>a token the {@link Builder#gate gate} refuses: {@code FAILED_PRECONDITION} with the
 *       {@value TokenRefusal#GRPC_KEY} trailer, before the handler runs;
 *   <li>a {@link dev.fencing.core.StaleTokenException} or {@link dev.fencing.core.ForeignTokenException}
 *       (or a malformed or missing token) thrown by the handler from one of its listener's methods
 *       (a unary or server-streaming handler: its store refused the write), if the call is not yet
 *       closed: the same status and trailer.
 * </ul>
 *
 * <p>The status's description is the refusal's message (cut to 512 bytes, see
 * {@link FencingGrpc#refusal}). Install it on the fenced services
 * ({@code ServerInterceptors.intercept(service, interceptor)}); the handler should write through a
 * fenced store with the token it is given: the gate alone orders admissions, not effects (see
 * {@link TokenGate}). Without {@link Builder#allowedLocks}, a token of any lock passes: every
 * caller's configuration is then part of the service's safety. Thread-safe; one instance serves
 * every call.
 */
public final class FencingServerInterceptor implements ServerInterceptor {

    private final @Nullable TokenGate gate;
    private final boolean requireToken;
    private final @Nullable AllowedLocks allowedLocks;
    private final FencingListener listener;

    private FencingServerInterceptor(Builder builder) {
        this.gate = builder.gate;
        this.requireToken = builder.requireToken;
        this.allowedLocks = builder.allowedLocks;
        this.listener = builder.listener;
    }

    /** An interceptor that reads tokens and answers refusals, with no gate, not requiring a token. */
    public static FencingServerInterceptor create() {
        return builder().build();
    }

    /** A builder: no gate and no token required unless set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The token in {@code headers}' {@value TokenHeader#GRPC_KEY} value; empty if there is none.
     *
     * @throws MalformedTokenException if the value is malformed or sent more than once
     */
    public static Optional<FencingToken> readMetadata(Metadata headers) {
        Iterable<String> all = headers.getAll(FencingGrpc.TOKEN_KEY);
        if (all == null) {
            return Optional.empty();
        }
        List<String> values = new ArrayList<>();
        all.forEach(values::add);
        if (values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw new MalformedTokenException(TokenHeader.GRPC_KEY + " was sent " + values.size()
                    + " times; send it once, with the token of the one lock the call is fenced by");
        }
        return Optional.of(TokenHeader.parse(values.get(0)));
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
            ServerCallHandler<ReqT, RespT> next) {
        OnceClosed<ReqT, RespT> once = new OnceClosed<>(call);
        Optional<FencingToken> token;
        try {
            token = readMetadata(headers);
            if (token.isEmpty() && requireToken) {
                throw new MissingTokenException(call.getMethodDescriptor().getFullMethodName());
            }
            if (token.isPresent() && allowedLocks != null) {
                String method = call.getMethodDescriptor().getFullMethodName();
                allowedLocks.check(token.get(), method, method, listener);
            }
            if (token.isPresent() && gate != null) {
                gate.admit(token.get());
            }
        } catch (RuntimeException e) {
            RuntimeException refusal = TokenRefusal.find(e);
            if (refusal == null) {
                throw e;
            }
            once.refuse(refusal);
            return new ServerCall.Listener<ReqT>() {};
        }
        once.sent = token.orElse(null);
        Context context = token.isPresent() ? Context.current().withValue(FencingGrpc.TOKEN, token.get())
                : Context.current();
        return new RefusingListener<>(Contexts.interceptCall(context, once, headers, next), once, token.orElse(null));
    }

    /** The call, closed at most once: by the handler, or by a refusal it threw. */
    private static final class OnceClosed<ReqT, RespT> extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {

        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile @Nullable FencingToken sent;

        OnceClosed(ServerCall<ReqT, RespT> delegate) {
            super(delegate);
        }

        /**
         * Closes the call; a handler that closes it with a refusal (its store's exception passed to
         * {@code onError}, or a failed call elsewhere passed on as it is) is answered by the same
         * rule as one that throws it: the request's own refusal as such, another's as a plain
         * {@code UNKNOWN} without the {@value TokenRefusal#GRPC_KEY} trailer.
         */
        @Override
        public void close(Status status, Metadata trailers) {
            if (!closed.compareAndSet(false, true)) {
                // as ServerCallImpl would
                throw new IllegalStateException("call already closed");
            }
            if (status.isOk()) {
                super.close(status, trailers);
                return;
            }
            @Nullable FencingToken token = sent;
            RuntimeException refusal = TokenRefusal.find(status.getCause());
            if (refusal != null && TokenRefusal.concerns(refusal, token)) {
                super.close(FencingGrpc.status(refusal), FencingGrpc.trailers(refusal));
                return;
            }
            Status closing = status;
            if (refusal != null) {
                trailers.discardAll(FencingGrpc.REFUSAL_KEY);
                closing = Status.UNKNOWN.withDescription(FencingGrpc.description(
                        "the handler's own call elsewhere, not this call's token, was refused: " + refusal.getMessage()))
                        .withCause(refusal);
            } else {
                // a failed call elsewhere passed on as it is: its refusal trailer is the caller's only
                // if it is a stale or foreign refusal of the caller's token, or an unknown outcome; a
                // lost race there ("nothing written" of that service's store) is not the caller's
                String relayed = trailers.get(FencingGrpc.REFUSAL_KEY);
                if (relayed != null && TokenRefusal.readFor(relayed, token == null ? null : TokenHeader.format(token))
                        .filter(refused -> !(refused instanceof ConcurrentUpdateException)).isEmpty()) {
                    trailers.discardAll(FencingGrpc.REFUSAL_KEY);
                }
            }
            super.close(closing, trailers);
        }

        /** Closes the call with {@code refusal}'s answer; false if the handler closed it already. */
        boolean refuse(RuntimeException refusal) {
            if (!closed.compareAndSet(false, true)) {
                return false;
            }
            super.close(FencingGrpc.status(refusal), FencingGrpc.trailers(refusal));
            return true;
        }
    }

    /** Answers a refusal thrown by the handler from any listener method as the interceptor would. */
    private static final class RefusingListener<ReqT> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<ReqT> {

        private final OnceClosed<ReqT, ?> call;
        private final @Nullable FencingToken sent;

        RefusingListener(ServerCall.Listener<ReqT> delegate, OnceClosed<ReqT, ?> call, @Nullable FencingToken sent) {
            super(delegate);
            this.call = call;
            this.sent = sent;
        }

        @Override
        public void onMessage(ReqT message) {
            try {
                super.onMessage(message);
            } catch (RuntimeException e) {
                answer(e);
            }
        }

        @Override
        public void onHalfClose() {
            try {
                super.onHalfClose();
            } catch (RuntimeException e) {
                answer(e);
            }
        }

        @Override
        public void onReady() {
            try {
                super.onReady();
            } catch (RuntimeException e) {
                answer(e);
            }
        }

        @Override
        public void onCancel() {
            try {
                super.onCancel();
            } catch (RuntimeException e) {
                answer(e);
            }
        }

        @Override
        public void onComplete() {
            try {
                super.onComplete();
            } catch (RuntimeException e) {
                answer(e);
            }
        }

        private void answer(RuntimeException e) {
            RuntimeException refusal = TokenRefusal.find(e);
            // a refusal of another token than the call's (the handler's own call elsewhere) is no
            // refusal of the caller's: it goes on as the error it is
            if (refusal == null || !TokenRefusal.concerns(refusal, sent) || !call.refuse(refusal)) {
                throw e;
            }
        }
    }

    /** Settings of a {@link FencingServerInterceptor}. */
    public static final class Builder {

        private @Nullable TokenGate gate;
        private boolean requireToken;
        private @Nullable AllowedLocks allowedLocks;
        private FencingListener listener = FencingListener.NONE;

        private Builder() {}

        /**
         * Refuses a token of a lock {@code locks} does not declare for the call's method (its full
         * name, {@code package.Service/Method}, matched as a path): {@code FAILED_PRECONDITION}
         * {@code foreign}, before the gate and the handler run. Default: a token of any lock passes.
         */
        public Builder allowedLocks(AllowedLocks locks) {
            if (locks == null) {
                throw new IllegalArgumentException("allowedLocks must not be null");
            }
            this.allowedLocks = locks;
            return this;
        }

        /**
         * Tells {@code listener}'s {@code onWriteFailed} of each token refused for its lock (so
         * metrics see it; it is logged at WARN in any case). Default: none.
         */
        public Builder listener(FencingListener listener) {
            if (listener == null) {
                throw new IllegalArgumentException("listener must not be null");
            }
            this.listener = listener;
            return this;
        }

        /** Admits every call's token through {@code gate} before the handler runs. */
        public Builder gate(TokenGate gate) {
            if (gate == null) {
                throw new IllegalArgumentException("gate must not be null");
            }
            this.gate = gate;
            return this;
        }

        /** Answers a call without a token {@code FAILED_PRECONDITION} instead of passing it on without one. */
        public Builder requireToken() {
            this.requireToken = true;
            return this;
        }

        /** The interceptor. */
        public FencingServerInterceptor build() {
            return new FencingServerInterceptor(this);
        }
    }
}
