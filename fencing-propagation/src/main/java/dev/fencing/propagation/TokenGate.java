package dev.fencing.propagation;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.StaleTokenException;

/**
 * Admits a request's token at a service's door: raises the durable mark of the token's lock to the
 * token, or refuses it with {@link StaleTokenException} when the service already admitted a newer
 * one (or an equal one under {@link dev.fencing.core.Policy#STRICT}). The servlet filter and the
 * gRPC interceptor call it before the handler runs, so a zombie's request is answered 409 /
 * {@code FAILED_PRECONDITION} and never reaches the handler.
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
     * Admits {@code token}, raising its lock's mark to it.
     *
     * @throws StaleTokenException if a newer token of the lock was admitted
     * @throws ForeignTokenException if the store binds the lock's key to another lock
     */
    void admit(FencingToken token);

    /**
     * A gate whose marks are items of {@code store}, one per lock, keyed by the lock's name: one
     * fenced write per admitted request. Give it a store of its own (a table, a bucket prefix), so
     * that no data key is spelled like a lock name. Refusals reach the store's listener.
     */
    static TokenGate over(FencedStore store) {
        if (store == null) {
            throw new IllegalArgumentException("store must not be null");
        }
        return token -> store.write(token, token.resource(), "admitted");
    }
}
