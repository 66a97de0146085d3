package dev.fencing.propagation.spring;

import dev.fencing.core.FencingException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.FencingContext;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * {@link FencingTokenInterceptor} for {@code WebClient}: sends the token and turns a refusal back
 * into the store's exception, as a {@code Mono} error.
 *
 * <p>The token sent is, first found: a {@value TokenHeader#HTTP_HEADER} header the request already
 * has, the request attribute {@link #TOKEN_ATTRIBUTE}, the fixed token of {@link #of}, or the token
 * bound by {@link FencingContext} on the thread that subscribes (for {@code block()} the caller's
 * thread; a pipeline that subscribes elsewhere passes the token as the attribute).
 */
public final class FencingExchangeFilter implements ExchangeFilterFunction {

    /** The request attribute that names the token for one request ({@code WebClient...attribute}). */
    public static final String TOKEN_ATTRIBUTE = FencingTokenInterceptor.TOKEN_ATTRIBUTE;

    private final @Nullable FencingToken fixed;
    private final FencingListener listener;

    private FencingExchangeFilter(@Nullable FencingToken fixed, FencingListener listener) {
        this.fixed = fixed;
        this.listener = listener;
    }

    /** Attaches the token bound by {@link FencingContext} on the subscribing thread, if any. */
    public static FencingExchangeFilter fromContext() {
        return new FencingExchangeFilter(null, FencingListener.NONE);
    }

    /** This filter, telling {@code listener} of every refusal it turns back into the store's exception. */
    public FencingExchangeFilter listener(FencingListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null; use FencingListener.NONE for none");
        }
        return new FencingExchangeFilter(fixed, listener);
    }

    /** Attaches {@code token} to every request. */
    public static FencingExchangeFilter of(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return new FencingExchangeFilter(token, FencingListener.NONE);
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        ClientRequest sent = request;
        if (!request.headers().containsHeader(TokenHeader.HTTP_HEADER)) {
            Optional<FencingToken> token = tokenFor(request);
            if (token.isPresent()) {
                sent = ClientRequest.from(request).header(TokenHeader.HTTP_HEADER, TokenHeader.format(token.get())).build();
            }
        }
        String sentHeader = sent.headers().getFirst(TokenHeader.HTTP_HEADER);
        return next.exchange(sent).flatMap(response -> {
            String refusal = response.statusCode().isError()
                    ? response.headers().asHttpHeaders().getFirst(TokenRefusal.HTTP_HEADER) : null;
            Optional<FencingException> ours = refusal == null ? Optional.empty()
                    : TokenRefusal.readFor(refusal, sentHeader);
            if (ours.isEmpty()) {
                return Mono.just(response);
            }
            return response.releaseBody().then(Mono.error(() -> TokenRefusal.reported(ours.get(), listener)));
        });
    }

    private Optional<FencingToken> tokenFor(ClientRequest request) {
        if (request.attribute(TOKEN_ATTRIBUTE).orElse(null) instanceof FencingToken token) {
            return Optional.of(token);
        }
        return fixed != null ? Optional.of(fixed) : FencingContext.currentToken();
    }
}
