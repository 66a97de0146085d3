package dev.fencing.propagation.servlet;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.propagation.AllowedLocks;
import dev.fencing.propagation.MalformedTokenException;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.TokenGate;
import dev.fencing.propagation.TokenHeader;
import dev.fencing.propagation.TokenRefusal;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A Jakarta Servlet filter that reads the caller's {@value TokenHeader#HTTP_HEADER}, hands it to
 * the handler ({@link #tokenOf}) and answers refusals as RFC 9457 problems:
 *
 * <ul>
 *   <li>a malformed header, or more than one: 400, before the handler runs;
 *   <li>no header, when {@link Builder#requireToken()} is set: 428, before the handler runs;
 *   <li>a token of a lock the {@link Builder#allowedLocks declaration} does not name for the
 *       path: 409 with {@link TokenRefusal#HTTP_HEADER} ({@code foreign}), before the gate and the
 *       handler run;
 *   <li>a token the {@link Builder#gate gate} refuses: 409 with {@link TokenRefusal#HTTP_HEADER},
 *       before the handler runs;
 *   <li>a {@link dev.fencing.core.StaleTokenException} or {@link dev.fencing.core.ForeignTokenException}
 *       thrown by the handler (its fenced store refused the write), if the response is not yet
 *       committed: 409 with {@link TokenRefusal#HTTP_HEADER} — if the refused token is the one
 *       the request carried; a refusal of another token (the handler's own call elsewhere) is a
 *       plain 500, so the caller never mistakes it for a refusal of its own token.
 * </ul>
 *
 * <p>Map it to the fenced endpoints, for the {@code REQUEST} dispatch (the default of
 * {@code FilterRegistrationBean} and of {@code web.xml}). It admits a request once: mapped for
 * {@code ASYNC}, {@code ERROR}, {@code FORWARD} or {@code INCLUDE} too, the later dispatches of a
 * request it admitted never pass the gate again, so an async handler's result or an error page is
 * never answered as a refusal of the token the request already spent; a dispatch to another path
 * is still held to that path's {@link Builder#allowedLocks declaration}. The handler should write through a fenced
 * store with the token it is given: the gate alone orders admissions, not effects (see
 * {@link TokenGate}). Without {@link Builder#allowedLocks}, a token of any lock passes: every
 * caller's configuration is then part of the service's safety. Thread-safe; one instance serves
 * every request.
 */
public final class FencingTokenFilter implements Filter {

    /** The request attribute holding the caller's {@link FencingToken}, when one was sent. */
    public static final String TOKEN_ATTRIBUTE = FencingToken.class.getName();

    private static final AtomicLong INSTANCES = new AtomicLong();

    /** The request attribute marking a request this instance already admitted. */
    private final String admittedAttribute =
            FencingTokenFilter.class.getName() + ".admitted." + INSTANCES.incrementAndGet();

    private final @Nullable TokenGate gate;
    private final boolean requireToken;
    private final @Nullable AllowedLocks allowedLocks;
    private final FencingListener listener;

    private FencingTokenFilter(Builder builder) {
        this.gate = builder.gate;
        this.requireToken = builder.requireToken;
        this.allowedLocks = builder.allowedLocks;
        this.listener = builder.listener;
    }

    /** A filter that reads tokens and answers refusals, with no gate, not requiring a token. */
    public static FencingTokenFilter create() {
        return builder().build();
    }

    /** A builder: no gate and no token required unless set. */
    public static Builder builder() {
        return new Builder();
    }

    /** The caller's token, as this filter read it for {@code request}; empty if none was sent. */
    public static Optional<FencingToken> tokenOf(ServletRequest request) {
        return request.getAttribute(TOKEN_ATTRIBUTE) instanceof FencingToken token ? Optional.of(token) : Optional.empty();
    }

    /**
     * The token in {@code request}'s {@value TokenHeader#HTTP_HEADER}; empty if there is none.
     *
     * @throws MalformedTokenException if the header is malformed or sent more than once
     */
    public static Optional<FencingToken> readHeader(HttpServletRequest request) {
        List<String> values = Collections.list(request.getHeaders(TokenHeader.HTTP_HEADER));
        if (values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw new MalformedTokenException(TokenHeader.HTTP_HEADER + " was sent " + values.size()
                    + " times; send it once, with the token of the one lock the request is fenced by");
        }
        return Optional.of(TokenHeader.parse(values.get(0)));
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        Optional<FencingToken> token;
        try {
            token = request.getAttribute(admittedAttribute) != null ? redispatched(request) : admit(request);
        } catch (RuntimeException e) {
            RuntimeException refusal = TokenRefusal.find(e);
            if (refusal == null) {
                throw e;
            }
            writeProblem(response, refusal);
            return;
        }
        token.ifPresent(t -> request.setAttribute(TOKEN_ATTRIBUTE, t));
        request.setAttribute(admittedAttribute, Boolean.TRUE);
        try {
            chain.doFilter(request, response);
        } catch (IOException | ServletException | RuntimeException e) {
            RuntimeException refusal = TokenRefusal.find(e);
            if (refusal == null || response.isCommitted()) {
                throw e;
            }
            response.resetBuffer();
            if (TokenRefusal.concerns(refusal, token.orElse(null))) {
                writeProblem(response, refusal);
            } else {
                writeNotTheCallers(response, refusal);
            }
        }
    }

    private Optional<FencingToken> admit(HttpServletRequest request) {
        Optional<FencingToken> token = readHeader(request);
        if (token.isEmpty() && requireToken) {
            throw new MissingTokenException(request.getMethod() + " " + request.getRequestURI());
        }
        if (token.isPresent() && allowedLocks != null) {
            String path = pathOf(request);
            allowedLocks.check(token.get(), path, request.getMethod() + " " + path, listener);
        }
        if (token.isPresent() && gate != null) {
            gate.admit(token.get());
        }
        return token;
    }

    /**
     * A later dispatch of a request this filter admitted: never through the gate again (the request
     * spent its admission), but held to the declaration of the path it is dispatched to (a
     * {@code FORWARD}, an {@code INCLUDE}, an {@code ASYNC} dispatch to another path); an
     * {@code ERROR} dispatch serves the error page and is not checked.
     */
    private Optional<FencingToken> redispatched(HttpServletRequest request) {
        Optional<FencingToken> token = tokenOf(request);
        if (token.isPresent() && allowedLocks != null && request.getDispatcherType() != DispatcherType.ERROR) {
            String path = pathOf(request);
            allowedLocks.check(token.get(), path, request.getMethod() + " " + path, listener);
        }
        return token;
    }

    /**
     * The path the container serves {@code request} under, within the application: its servlet
     * path and path info, which the container decoded and normalized (path parameters such as
     * {@code ;jsessionid=} removed, {@code %6F} decoded, {@code ..} resolved) before it chose the
     * servlet — so a declaration is matched against the path the handler is chosen by, not a
     * spelling of it. For an {@code INCLUDE} dispatch, the included path.
     */
    public static String pathOf(HttpServletRequest request) {
        if (request.getDispatcherType() == DispatcherType.INCLUDE
                && request.getAttribute(RequestDispatcher.INCLUDE_SERVLET_PATH) instanceof String included) {
            return included + (request.getAttribute(RequestDispatcher.INCLUDE_PATH_INFO) instanceof String info ? info : "");
        }
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return path.isEmpty() ? "/" : path;
    }

    /**
     * Writes {@code refusal} to {@code response} as an RFC 9457 problem with its status and, for a
     * stale or foreign token, the {@value TokenRefusal#HTTP_HEADER} header.
     */
    public static void writeProblem(HttpServletResponse response, RuntimeException refusal) throws IOException {
        byte[] body = TokenRefusal.problemJson(refusal).getBytes(StandardCharsets.UTF_8);
        response.setStatus(TokenRefusal.httpStatus(refusal));
        TokenRefusal.header(refusal).ifPresent(value -> response.setHeader(TokenRefusal.HTTP_HEADER, value));
        response.setContentType(TokenRefusal.PROBLEM_MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /**
     * Writes a refusal that is not the request's own ({@link TokenRefusal#concerns}) as a plain
     * 500 problem, without {@value TokenRefusal#HTTP_HEADER}: the caller's client must not read it
     * as a refusal of the caller's token.
     */
    public static void writeNotTheCallers(HttpServletResponse response, RuntimeException refusal) throws IOException {
        byte[] body = TokenRefusal.notTheCallersProblemJson(refusal).getBytes(StandardCharsets.UTF_8);
        response.setStatus(500);
        response.setContentType(TokenRefusal.PROBLEM_MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** Settings of a {@link FencingTokenFilter}. */
    public static final class Builder {

        private @Nullable TokenGate gate;
        private boolean requireToken;
        private @Nullable AllowedLocks allowedLocks;
        private FencingListener listener = FencingListener.NONE;

        private Builder() {}

        /**
         * Refuses a token of a lock {@code locks} does not declare for the request's path
         * ({@link #pathOf}): 409 {@code foreign}, before the gate and the handler run. Default: a
         * token of any lock passes.
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

        /** Admits every request's token through {@code gate} before the handler runs. */
        public Builder gate(TokenGate gate) {
            if (gate == null) {
                throw new IllegalArgumentException("gate must not be null");
            }
            this.gate = gate;
            return this;
        }

        /** Answers a request without a token 428 instead of passing it on without one. */
        public Builder requireToken() {
            this.requireToken = true;
            return this;
        }

        /** The filter. */
        public FencingTokenFilter build() {
            return new FencingTokenFilter(this);
        }
    }
}
