package dev.fencing.propagation.spring;

import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import java.io.IOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Sends the caller's token with every request of a {@code RestClient} (or {@code RestTemplate})
 * and turns a fenced service's refusal back into the store's exception.
 *
 * <p>The token sent is, first found: a {@value TokenHeader#HTTP_HEADER} header the request already
 * has (left as it is), the request attribute {@link #TOKEN_ATTRIBUTE}, the fixed token of
 * {@link #of(FencingToken)}, or the token bound to the calling thread by {@link FencingContext}.
 * With none of them, nothing is attached. An error answer carrying {@link TokenRefusal#HTTP_HEADER}
 * throws the service's store exception: {@link dev.fencing.core.StaleTokenException} with the
 * service's key, mark and policy, {@code ForeignTokenException}, {@code ConcurrentUpdateException}
 * or {@code WriteOutcomeUnknownException}.
 *
 * <pre>{@code
 * RestClient payments = RestClient.builder().baseUrl(url)
 *         .requestInterceptor(FencingTokenInterceptor.fromContext()).build();
 * }</pre>
 */
public final class FencingTokenInterceptor implements ClientHttpRequestInterceptor {

    /** The request attribute that names the token for one request ({@code RestClient...attribute}). */
    public static final String TOKEN_ATTRIBUTE = FencingToken.class.getName();

    private final @Nullable FencingToken fixed;
    private final FencingListener listener;

    private FencingTokenInterceptor(@Nullable FencingToken fixed, FencingListener listener) {
        this.fixed = fixed;
        this.listener = listener;
    }

    /** Attaches the token bound by {@link FencingContext} on the calling thread, if any. */
    public static FencingTokenInterceptor fromContext() {
        return new FencingTokenInterceptor(null, FencingListener.NONE);
    }

    /**
     * This interceptor, telling {@code listener} of every refusal it turns back into the store's
     * exception ({@code onStaleWriteRejected}, {@code onWriteFailed}), as a local store would: so
     * metrics and logs on the caller's side see the writes the service refused.
     */
    public FencingTokenInterceptor listener(FencingListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null; use FencingListener.NONE for none");
        }
        return new FencingTokenInterceptor(fixed, listener);
    }

    /** Attaches {@code token} to every request (a client built for one critical section). */
    public static FencingTokenInterceptor of(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return new FencingTokenInterceptor(token, FencingListener.NONE);
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        if (!request.getHeaders().containsHeader(TokenHeader.HTTP_HEADER)) {
            tokenFor(request).ifPresent(token -> request.getHeaders().set(TokenHeader.HTTP_HEADER, TokenHeader.format(token)));
        }
        ClientHttpResponse response = execution.execute(request, body);
        String refusal = response.getStatusCode().isError()
                ? response.getHeaders().getFirst(TokenRefusal.HTTP_HEADER) : null;
        Optional<FencingException> ours = refusal == null ? Optional.empty()
                : TokenRefusal.readFor(refusal, request.getHeaders().getFirst(TokenHeader.HTTP_HEADER));
        if (ours.isPresent()) {
            response.close();
            throw TokenRefusal.reported(ours.get(), listener);
        }
        return response;
    }

    private Optional<FencingToken> tokenFor(HttpRequest request) {
        if (request.getAttributes().get(TOKEN_ATTRIBUTE) instanceof FencingToken token) {
            return Optional.of(token);
        }
        return fixed != null ? Optional.of(fixed) : FencingContext.currentToken();
    }
}
