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
 */
@RestControllerAdvice
public class FencingProblemAdvice {

    private static @Nullable FencingToken requestToken(HttpServletRequest request) {
        try {
            return FencingTokenFilter.tokenOf(request).or(() -> FencingTokenFilter.readHeader(request)).orElse(null);
        } catch (MalformedTokenException e) {
            return null;
        }
    }

    /**
     * The problem answer for {@code refusal}; a stale or foreign token that is not the one the
     * request carried (the handler's own call elsewhere was refused) is a plain 500 instead.
     */
    @ExceptionHandler({StaleTokenException.class, ForeignTokenException.class, MalformedTokenException.class,
        MissingTokenException.class, ConcurrentUpdateException.class, WriteOutcomeUnknownException.class})
    public ResponseEntity<String> refused(RuntimeException refusal, HttpServletRequest request) {
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
