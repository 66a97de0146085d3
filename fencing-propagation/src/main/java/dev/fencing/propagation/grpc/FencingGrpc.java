package dev.fencing.propagation.grpc;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingException;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.propagation.MalformedTokenException;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The gRPC side of a fenced call, for handlers and callers:
 *
 * <ul>
 *   <li>{@link #currentToken()}: the caller's token, as {@link FencingServerInterceptor} read it;
 *   <li>{@link #refusal(RuntimeException)}: the status a handler answers a store's refusal with
 *       ({@code responseObserver.onError(FencingGrpc.refusal(e))});
 *   <li>{@link #refusalOf(Throwable)} and {@link #call(Supplier)}: the store's exception back on the
 *       caller's side.
 * </ul>
 *
 * <p>A refusal crosses the wire as {@code FAILED_PRECONDITION} with the trailer
 * {@value TokenRefusal#GRPC_KEY}, whose value is the {@link TokenRefusal#HTTP_HEADER} value: the
 * caller gets {@link StaleTokenException} or {@link ForeignTokenException} back with the service's
 * key, tokens, mark and policy. A store's {@code ConcurrentUpdateException} crosses as
 * {@code ABORTED} and its {@code WriteOutcomeUnknownException} as {@code UNKNOWN}, each with the
 * trailer, and come back as themselves. A malformed token is answered {@code INVALID_ARGUMENT}, a
 * missing one {@code FAILED_PRECONDITION} without that trailer; neither becomes a store exception.
 *
 * <p>The client side is explicit rather than done inside {@link FencingClientInterceptor}: a
 * {@code ClientInterceptor} cannot make a blocking stub throw anything but
 * {@link StatusRuntimeException}, so the interceptor attaches the rebuilt store exception as that
 * exception's cause (found by {@link TokenRefusal#find}), and {@link #call(Supplier)} throws it.
 */
public final class FencingGrpc {

    /** The {@link Context} key under which {@link FencingServerInterceptor} puts the caller's token. */
    static final Context.Key<FencingToken> TOKEN = Context.key(TokenHeader.GRPC_KEY);

    /** The token metadata key ({@value TokenHeader#GRPC_KEY}, ASCII). */
    static final Metadata.Key<String> TOKEN_KEY = Metadata.Key.of(TokenHeader.GRPC_KEY, Metadata.ASCII_STRING_MARSHALLER);

    /** The refusal trailer key ({@value TokenRefusal#GRPC_KEY}, ASCII). */
    static final Metadata.Key<String> REFUSAL_KEY = Metadata.Key.of(TokenRefusal.GRPC_KEY,
            Metadata.ASCII_STRING_MARSHALLER);

    /** The longest status description sent, in bytes of UTF-8: see {@link #description}. */
    static final int MAX_DESCRIPTION_BYTES = 512;

    private static final String ELLIPSIS = "… (cut; the refusal's details are in the " + TokenRefusal.GRPC_KEY + " trailer)";
    private static final int ELLIPSIS_BYTES = ELLIPSIS.getBytes(StandardCharsets.UTF_8).length;
    private static final int ELLIPSIS_ENCODED = ELLIPSIS.codePoints()
            .map(c -> encodedSize(c, new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8).length)).sum();

    /**
     * The most the refusal trailer's value and the percent-encoded description take together: with
     * the other trailers and HTTP/2's 32 bytes an entry, under a client's default 8 KiB.
     */
    static final int MAX_TRAILER_BYTES = 7168;

    private FencingGrpc() {}

    /**
     * The token the caller sent with the call being handled, as {@link FencingServerInterceptor}
     * read it; empty if none was sent, or outside a call it intercepted. Read it on the handler's
     * thread (the gRPC {@link Context} of the call).
     */
    public static Optional<FencingToken> currentToken() {
        return Optional.ofNullable(TOKEN.get());
    }

    /**
     * The exception a handler answers {@code refusal} with: {@code FAILED_PRECONDITION} with the
     * {@value TokenRefusal#GRPC_KEY} trailer for a stale or foreign token, {@code INVALID_ARGUMENT}
     * for a malformed one, {@code FAILED_PRECONDITION} for a missing one, {@code ABORTED} (with the
     * trailer) for a store's {@code ConcurrentUpdateException}, {@code UNKNOWN} (with the trailer)
     * for its {@code WriteOutcomeUnknownException}. The description is the
     * refusal's message, cut to 512 bytes of UTF-8, and shorter when the trailer is long (a foreign
     * token's three names), so that the trailers of the longest names stay within a client's
     * default 8 KiB; the refusal is the status's cause (not sent over the wire).
     *
     * @throws IllegalArgumentException if {@code refusal} is none of the six
     */
    public static StatusRuntimeException refusal(RuntimeException refusal) {
        return status(refusal).asRuntimeException(trailers(refusal));
    }

    /** The status of {@link #refusal(RuntimeException)}, for a {@code ServerCall} closed by hand. */
    static Status status(RuntimeException refusal) {
        Status code;
        if (refusal instanceof StaleTokenException || refusal instanceof ForeignTokenException
                || refusal instanceof MissingTokenException) {
            code = Status.FAILED_PRECONDITION;
        } else if (refusal instanceof MalformedTokenException) {
            code = Status.INVALID_ARGUMENT;
        } else if (refusal instanceof ConcurrentUpdateException) {
            code = Status.ABORTED;
        } else if (refusal instanceof WriteOutcomeUnknownException) {
            code = Status.UNKNOWN;
        } else {
            throw new IllegalArgumentException("not a token refusal: " + refusal);
        }
        int trailer = TokenRefusal.header(refusal).map(String::length).orElse(0);
        return code.withDescription(description(String.valueOf(refusal.getMessage()), MAX_TRAILER_BYTES - trailer))
                .withCause(refusal);
    }

    /**
     * {@code message}, cut to at most {@value #MAX_DESCRIPTION_BYTES} bytes of UTF-8. The status
     * description travels percent-encoded beside the refusal trailer, and a client refuses
     * trailers over 8 KiB by default: a stale token of a 256-character lock on a 256-character key
     * in a non-Latin script, its names both in the message and in the trailer, would otherwise be
     * answered {@code INTERNAL} instead of the refusal.
     */
    static String description(String message) {
        return description(message, MAX_TRAILER_BYTES);
    }

    /**
     * {@code message}, cut to at most {@value #MAX_DESCRIPTION_BYTES} bytes of UTF-8 and to at most
     * {@code encodedBudget} bytes once percent-encoded as gRPC sends it: the refusal trailer of a
     * foreign token names three names, up to 7 KiB, and shares the client's 8 KiB with it.
     */
    static String description(String message, int encodedBudget) {
        int budget = Math.max(encodedBudget, ELLIPSIS_ENCODED);
        int bytes = 0;
        int encoded = 0;
        for (int i = 0; i < message.length(); ) {
            int c = message.codePointAt(i);
            int size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
            int sent = encodedSize(c, size);
            if (bytes + size > MAX_DESCRIPTION_BYTES - ELLIPSIS_BYTES || encoded + sent > budget - ELLIPSIS_ENCODED) {
                return message.substring(0, i) + ELLIPSIS;
            }
            bytes += size;
            encoded += sent;
            i += Character.charCount(c);
        }
        return message;
    }

    /** The bytes code point {@code c} ({@code size} bytes of UTF-8) takes in a status description on the wire. */
    private static int encodedSize(int c, int size) {
        return c >= ' ' && c < 0x7f && c != '%' ? 1 : 3 * size;
    }

    /** The trailers of {@link #refusal(RuntimeException)}, for a {@code ServerCall} closed by hand. */
    static Metadata trailers(RuntimeException refusal) {
        Metadata trailers = new Metadata();
        TokenRefusal.header(refusal).ifPresent(value -> trailers.put(REFUSAL_KEY, value));
        return trailers;
    }

    /**
     * The store's exception a failed call stands for: a {@link StaleTokenException} or
     * {@link ForeignTokenException} in {@code failure}'s causes (as {@link FencingClientInterceptor}
     * attaches it), or rebuilt from the {@value TokenRefusal#GRPC_KEY} trailer of a
     * failed {@link StatusRuntimeException} or {@link StatusException} in them.
     * Empty for any other failure, and for a trailer that is not a refusal (the status then stands
     * for itself).
     */
    public static Optional<FencingException> refusalOf(@Nullable Throwable failure) {
        RuntimeException found = TokenRefusal.find(failure);
        if (found instanceof StaleTokenException || found instanceof ForeignTokenException
                || found instanceof ConcurrentUpdateException || found instanceof WriteOutcomeUnknownException) {
            return Optional.of((FencingException) found);
        }
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            Status status;
            Metadata trailers;
            if (t instanceof StatusRuntimeException e) {
                status = e.getStatus();
                trailers = e.getTrailers();
            } else if (t instanceof StatusException e) {
                status = e.getStatus();
                trailers = e.getTrailers();
            } else {
                continue;
            }
            return fromTrailers(status, trailers);
        }
        return Optional.empty();
    }

    /** The store's exception in a closed call's status and trailers, if it is a refusal. */
    static Optional<FencingException> fromTrailers(Status status, @Nullable Metadata trailers) {
        if (status.isOk() || trailers == null) {
            return Optional.empty();
        }
        String value = trailers.get(REFUSAL_KEY);
        if (value == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(TokenRefusal.read(value));
        } catch (MalformedTokenException e) {
            return Optional.empty();
        }
    }

    /**
     * Runs a blocking stub's call and returns its answer; a refusal is thrown as the store's
     * exception ({@link StaleTokenException} or {@link ForeignTokenException}), any other
     * {@link StatusRuntimeException} as it is.
     *
     * <pre>{@code
     * String receipt = FencingGrpc.call(() -> payments.charge(request));   // StaleTokenException if fenced off
     * }</pre>
     */
    public static <T> T call(Supplier<T> call) {
        if (call == null) {
            throw new IllegalArgumentException("call must not be null");
        }
        try {
            return call.get();
        } catch (StatusRuntimeException e) {
            Optional<FencingException> refusal = refusalOf(e);
            if (refusal.isPresent()) {
                FencingException thrown = refusal.get();
                if (thrown != e.getCause()) {
                    thrown.addSuppressed(e);
                }
                throw thrown;
            }
            throw e;
        }
    }
}
