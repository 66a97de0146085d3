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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

    private static final Logger LOG = LoggerFactory.getLogger(FencingTokenInterceptor.class);

    private final @Nullable FencingToken fixed;
    private final FencingListener listener;
    private final boolean requireToken;

    private FencingTokenInterceptor(@Nullable FencingToken fixed, FencingListener listener, boolean requireToken) {
        this.fixed = fixed;
        this.listener = listener;
        this.requireToken = requireToken;
    }

    /** Attaches the token bound by {@link FencingContext} on the calling thread, if any. */
    public static FencingTokenInterceptor fromContext() {
        return new FencingTokenInterceptor(null, FencingListener.NONE, false);
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
        return new FencingTokenInterceptor(fixed, listener, requireToken);
    }

    /**
     * This interceptor, refusing to send a request that has no token (none bound, none set for the
     * request) with an {@link IllegalStateException} naming the request, instead of sending it
     * unfenced: for a client whose every call must be fenced. By default such a request goes out
     * without the header (logged at DEBUG).
     */
    public FencingTokenInterceptor requireToken() {
        return new FencingTokenInterceptor(fixed, listener, true);
    }

    /** Attaches {@code token} to every request (a client built for one critical section). */
    public static FencingTokenInterceptor of(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return new FencingTokenInterceptor(token, FencingListener.NONE, false);
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        if (!request.getHeaders().containsHeader(TokenHeader.HTTP_HEADER)) {
            Optional<FencingToken> token = tokenFor(request);
            if (token.isPresent()) {
                request.getHeaders().set(TokenHeader.HTTP_HEADER, TokenHeader.format(token.get()));
            } else if (requireToken) {
                throw new IllegalStateException(request.getMethod() + " " + request.getURI() + " has no fencing token to"
                        + " send: bind one around the call (FencingContext.bind(lease), @LeaderOnly), or set the"
                        + " request attribute " + TOKEN_ATTRIBUTE + "; this client refuses to call without one");
            } else {
                LOG.debug("{} {} sent without a fencing token: none bound on this thread (FencingContext) and none set"
                        + " for the request", request.getMethod(), request.getURI());
            }
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
