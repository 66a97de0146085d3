package dev.fencing.propagation.http;

import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;

/**
 * The JDK {@link HttpClient} with the caller's token on every request and a fenced service's
 * refusal turned back into the store's exception.
 *
 * <p>{@link #send(HttpRequest, HttpResponse.BodyHandler)} attaches the token bound by
 * {@link FencingContext} on the calling thread (nothing outside a scope);
 * {@link #send(FencingToken, HttpRequest, HttpResponse.BodyHandler)} attaches the one given. A
 * request that already has a {@value TokenHeader#HTTP_HEADER} header is sent as it is. An error
 * answer carrying {@link TokenRefusal#HTTP_HEADER} throws the service's store exception
 * ({@link dev.fencing.core.StaleTokenException} with the service's key, mark and policy,
 * {@code ForeignTokenException}, {@code ConcurrentUpdateException}, {@code WriteOutcomeUnknownException}).
 *
 * <p>An {@link IOException} after the request was sent leaves its outcome unknown, as for any
 * HTTP call: the service may have acted. Re-read before sending the write again, or give the
 * service an idempotency key. Thread-safe.
 */
public final class FencedHttpClient {

    private final HttpClient client;
    private final FencingListener listener;

    private FencedHttpClient(HttpClient client, FencingListener listener) {
        this.client = client;
        this.listener = listener;
    }

    /** Wraps {@code client}. */
    public static FencedHttpClient of(HttpClient client) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        return new FencedHttpClient(client, FencingListener.NONE);
    }

    /** This client, telling {@code listener} of every refusal it turns back into the store's exception. */
    public FencedHttpClient listener(FencingListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null; use FencingListener.NONE for none");
        }
        return new FencedHttpClient(client, listener);
    }

    /** Sends {@code request} with the token bound on this thread, if any. */
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        return sendWith(FencingContext.currentToken(), request, body);
    }

    /** Sends {@code request} with {@code token}. */
    public <T> HttpResponse<T> send(FencingToken token, HttpRequest request, HttpResponse.BodyHandler<T> body)
            throws IOException, InterruptedException {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return sendWith(Optional.of(token), request, body);
    }

    /** {@code request} with {@code token}'s header added (for a client of your own). */
    public static HttpRequest withToken(HttpRequest request, FencingToken token) {
        if (request == null || token == null) {
            throw new IllegalArgumentException("request and token must not be null");
        }
        return HttpRequest.newBuilder(request, (name, value) -> !name.equalsIgnoreCase(TokenHeader.HTTP_HEADER))
                .header(TokenHeader.HTTP_HEADER, TokenHeader.format(token)).build();
    }

    /**
     * Throws the store's exception if {@code response} is a fenced service's refusal of the
     * request's own token (an error status with {@link TokenRefusal#HTTP_HEADER}, see
     * {@link TokenRefusal#readFor}); returns it otherwise.
     */
    public static <T> HttpResponse<T> checked(HttpResponse<T> response) {
        if (response.statusCode() >= 400) {
            Optional<String> refusal = response.headers().firstValue(TokenRefusal.HTTP_HEADER);
            Optional<FencingException> ours = refusal.flatMap(value -> TokenRefusal.readFor(value,
                    response.request().headers().firstValue(TokenHeader.HTTP_HEADER).orElse(null)));
            if (ours.isPresent()) {
                throw ours.get();
            }
        }
        return response;
    }

    private <T> HttpResponse<T> sendWith(Optional<FencingToken> token, HttpRequest request,
            HttpResponse.BodyHandler<T> body) throws IOException, InterruptedException {
        if (request == null || body == null) {
            throw new IllegalArgumentException("request and body handler must not be null");
        }
        HttpRequest sent = token.isPresent() && request.headers().firstValue(TokenHeader.HTTP_HEADER).isEmpty()
                ? withToken(request, token.get()) : request;
        try {
            return checked(client.send(sent, body));
        } catch (FencingException refusal) {
            throw TokenRefusal.reported(refusal, listener);
        }
    }
}
