package dev.fencing.propagation.spring;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.AllowedLocks;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.servlet.FencingTokenFilter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Gives a Spring MVC handler the caller's token as a parameter: {@code FencingToken token} (a
 * request without one is answered 428) or {@code Optional<FencingToken> token}. Reads what
 * {@link FencingTokenFilter} read, or the header itself when the filter is not installed; a
 * malformed header is answered 400. Register it with
 * {@code WebMvcConfigurer.addArgumentResolvers}, and {@link FencingProblemAdvice} for the answers.
 *
 * <pre>{@code
 * @PutMapping("/orders/{id}")
 * void put(@PathVariable String id, @RequestBody String order, FencingToken token) {
 *     orders.write(token, id, order);   // a fenced store: a zombie's write is refused, answered 409
 * }
 * }</pre>
 *
 * <p>Given an {@link AllowedLocks} declaration, it refuses a token of a lock not declared for the
 * request's path with {@link dev.fencing.core.ForeignTokenException} (answered 409 by the advice)
 * before the handler runs: without one, a token of any lock passes, and every caller's
 * configuration is part of the service's safety.
 */
public final class FencingTokenArgumentResolver implements HandlerMethodArgumentResolver {

    private final @Nullable AllowedLocks allowedLocks;
    private final FencingListener listener;

    /** A resolver that passes a token of any lock. */
    public FencingTokenArgumentResolver() {
        this.allowedLocks = null;
        this.listener = FencingListener.NONE;
    }

    /**
     * A resolver that refuses a token of a lock {@code allowedLocks} does not declare for the
     * request's path, logging it at WARN and telling {@code listener}'s {@code onWriteFailed}.
     */
    public FencingTokenArgumentResolver(AllowedLocks allowedLocks, FencingListener listener) {
        if (allowedLocks == null || listener == null) {
            throw new IllegalArgumentException("allowedLocks and listener must not be null (FencingListener.NONE for none)");
        }
        this.allowedLocks = allowedLocks;
        this.listener = listener;
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.nestedIfOptional().getNestedParameterType() == FencingToken.class;
    }

    @Override
    public @Nullable Object resolveArgument(MethodParameter parameter, @Nullable ModelAndViewContainer mavContainer,
            NativeWebRequest webRequest, @Nullable WebDataBinderFactory binderFactory) {
        HttpServletRequest request = webRequest.getNativeRequest(HttpServletRequest.class);
        if (request == null) {
            throw new IllegalStateException("FencingTokenArgumentResolver serves Servlet requests only, got "
                    + webRequest.getNativeRequest().getClass().getName());
        }
        Optional<FencingToken> token = FencingTokenFilter.tokenOf(request).or(() -> FencingTokenFilter.readHeader(request));
        if (token.isPresent() && allowedLocks != null) {
            String path = FencingTokenFilter.pathOf(request);
            allowedLocks.check(token.get(), path, request.getMethod() + " " + path, listener);
        }
        if (parameter.getParameterType() == Optional.class) {
            return token;
        }
        return token.orElseThrow(() -> new MissingTokenException(request.getMethod() + " " + request.getRequestURI()));
    }
}
