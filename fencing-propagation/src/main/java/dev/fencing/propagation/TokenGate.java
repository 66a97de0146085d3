package dev.fencing.propagation;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Admits a request's token at a service's door, or refuses it with {@link StaleTokenException}
 * when the service's mark for the token's lock is newer: {@link #over} keeps a mark of the
 * admissions themselves (raised to each admitted token), {@link JdbcTokenGate} checks the mark the
 * service's own fenced writes left. A token equal to the mark is admitted: a holder's every request
 * carries the same token. The servlet filter and the gRPC interceptor call it before the handler
 * runs, so a zombie's request is answered 409 / {@code FAILED_PRECONDITION} and never reaches the
 * handler.
 *
 * <p><b>What a gate does not do.</b> It orders admissions, not effects: a request admitted just
 * before a newer holder's, then paused, can still apply its effect after the newer one's. Where
 * that matters, the handler writes through a fenced store (or {@code JdbcFence.inTransaction})
 * with the request's token, which checks the mark atomically with the write; the gate then only
 * turns a zombie away early. The mark is as durable as the store behind the gate.
 */
@FunctionalInterface
public interface TokenGate {

    /**
     * Admits {@code token}.
     *
     * @throws StaleTokenException if the lock's mark is newer than {@code token}
     * @throws ForeignTokenException if the store binds the lock's key to another lock
     */
    void admit(FencingToken token);

    /**
     * This gate behind a declaration, for a door without request paths (a message consumer, a
     * transport of your own): a token of a lock that {@code locks} does not declare for every path
     * ({@link AllowedLocks.Builder#lock}; rules for some paths only allow nothing here) is refused
     * as {@link ForeignTokenException} before this gate sees it, so it gets no mark, logged at WARN
     * and told to {@code listener}'s {@code onWriteFailed}. The servlet filter and the gRPC
     * interceptor take a declaration of their own, matched per path.
     */
    default TokenGate onlyFor(AllowedLocks locks, FencingListener listener) {
        if (locks == null || listener == null) {
            throw new IllegalArgumentException("locks and listener must not be null (FencingListener.NONE for none)");
        }
        return token -> {
            locks.check(token, "", token.resource(), listener);
            admit(token);
        };
    }

    /** The start of every key a gate over a store writes its marks under. */
    String KEY_PREFIX = "fencing-gate/";

    /**
     * A gate whose marks are items of {@code store}, one per lock: one fenced write per admitted
     * request. The key of a lock's mark is {@link #keyOf}: a prefix and a hash of the lock's name,
     * never the name itself, so that a gate given the store that holds the service's data cannot
     * overwrite an item whose key is spelled like a lock. Keep the store's own keys out of the
     * {@value #KEY_PREFIX} prefix. A refusal names the lock as its key, and reaches the store's
     * listener. The store must be {@link Policy#MONOTONIC}: a gate writes a holder's token once per
     * request, and a holder sends the same token with each of its requests.
     *
     * @throws IllegalArgumentException if {@code store} is {@link Policy#STRICT}, which would refuse a
     *     holder's second request (a STRICT service keeps its own writes STRICT: the gate's marks are
     *     keys of their own)
     */
    static TokenGate over(FencedStore store) {
        if (store == null) {
            throw new IllegalArgumentException("store must not be null");
        }
        if (store.policy() == Policy.STRICT) {
            throw new IllegalArgumentException("a gate over a STRICT store would refuse a holder's second request (it"
                    + " carries the same token, and the gate writes it once per request); give the gate a MONOTONIC store:"
                    + " its marks are keys of their own, so the service's STRICT writes stay STRICT");
        }
        return token -> {
            try {
                store.write(token, keyOf(token.resource()), "admitted");
            } catch (StaleTokenException e) {
                // the caller knows the lock, not the hashed key
                throw StaleTokenException.of(token.resource(), e.presented(), e.highWaterMark(), e.policy());
            }
        };
    }

    /**
     * The key under which {@link #over} keeps {@code lock}'s mark: {@value #KEY_PREFIX} and the
     * SHA-256 of the name's UTF-8 bytes, base64url without padding (56 characters in all).
     */
    static String keyOf(String lock) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(
                    FencingToken.of(lock, 1).resource().getBytes(StandardCharsets.UTF_8));
            return KEY_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
