package dev.fencing.propagation.spring;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.propagation.MalformedTokenException;
import dev.fencing.propagation.MissingTokenException;
import dev.fencing.propagation.TokenRefusal;
import dev.fencing.propagation.servlet.FencingTokenFilter;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers the toolkit's refusals from Spring MVC handlers as RFC 9457 problems: a stale or foreign
 * token 409 with {@link TokenRefusal#HTTP_HEADER} (which the toolkit's clients turn back into the
 * store's exception), a malformed token 400, a missing one 428, and the store's
 * {@code ConcurrentUpdateException} (409) and {@code WriteOutcomeUnknownException} (500) so that the
 * caller can tell "retry later" and "may have landed" from a plain error. Import it
 * ({@code @Import(FencingProblemAdvice.class)}) or declare it as a bean.
 *
 * <p>A refusal reaches the caller as itself however it reaches Spring MVC: thrown as it is, or
 * wrapped by the handler's own plumbing ({@code CompletionException} of a
 * {@code CompletableFuture.join()}, {@code ExecutionException}, a framework's wrapper — the
 * refusal is found among the causes, as the servlet filter and the gRPC interceptor do). The advice
 * is ordered first ({@link Ordered#HIGHEST_PRECEDENCE}), so an application's catch-all
 * {@code @ExceptionHandler(Exception.class)} does not answer a refused write 500; it only sees
 * what this advice does not handle. An application advice that must come before it declares its
 * own order as {@code HIGHEST_PRECEDENCE} too, and then answers refusals itself.
 */
@RestControllerAdvice
public class FencingProblemAdvice implements Ordered {

    /** {@link Ordered#HIGHEST_PRECEDENCE}: before the application's own advice. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    private static @Nullable FencingToken requestToken(HttpServletRequest request) {
        try {
            return FencingTokenFilter.tokenOf(request).or(() -> FencingTokenFilter.readHeader(request)).orElse(null);
        } catch (MalformedTokenException e) {
            return null;
        }
    }

    /**
     * The problem answer for the refusal in {@code thrown} (itself or one of its causes); a stale
     * or foreign token that is not the one the request carried (the handler's own call elsewhere
     * was refused) is a plain 500 instead.
     *
     * @throws Exception {@code thrown} itself, if none of its causes is a refusal
     */
    @ExceptionHandler({StaleTokenException.class, ForeignTokenException.class, MalformedTokenException.class,
        MissingTokenException.class, ConcurrentUpdateException.class, WriteOutcomeUnknownException.class})
    public ResponseEntity<String> refused(Exception thrown, HttpServletRequest request) throws Exception {
        RuntimeException refusal = TokenRefusal.find(thrown);
        if (refusal == null) {
            throw thrown;
        }
        HttpHeaders headers = new HttpHeaders();
        headers.setContentType(MediaType.parseMediaType(TokenRefusal.PROBLEM_MEDIA_TYPE));
        if (!TokenRefusal.concerns(refusal, requestToken(request))) {
            return ResponseEntity.status(500).headers(headers).body(TokenRefusal.notTheCallersProblemJson(refusal));
        }
        TokenRefusal.header(refusal).ifPresent(value -> headers.set(TokenRefusal.HTTP_HEADER, value));
        return ResponseEntity.status(TokenRefusal.httpStatus(refusal)).headers(headers)
                .body(TokenRefusal.problemJson(refusal));
    }
}
