package dev.fencing.propagation;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The token of the critical section the current thread is in, for the clients that attach it
 * implicitly (the {@code FencingTokenInterceptor}s and {@code FencedHttpClient}): bind a lease or
 * a token for a block, and every call those clients make from this thread in the block carries it.
 *
 * <pre>{@code
 * try (Lease lease = locks.acquire("order-7", options);
 *         FencingContext.Scope scope = FencingContext.bind(lease)) {
 *     payments.charge(order);   // its RestClient's interceptor sends Fencing-Token: N; lock=order-7
 * }
 * }</pre>
 *
 * <p>Outside any scope nothing is attached: a call without a lease is sent as it is, and a
 * downstream that requires a token refuses it. A lease's token is read at each call; a lease that
 * has expired still sends its token, and the downstream's mark refuses it once a newer holder has
 * written there — as the toolkit's own stores do. Scopes nest; closing one restores the one around
 * it. The binding is per thread: work handed to another thread (an executor, a reactive pipeline)
 * binds again there, or passes the token explicitly.
 *
 * <p>A scope closed on another thread than the one that opened it (from a
 * {@code CompletableFuture.whenComplete} callback, say) ends the binding all the same: from then on
 * the opening thread's calls no longer carry the token, and the next request served by that pooled
 * thread sends none. Scopes opened inside it on the opening thread stay open until they are closed.
 */
public final class FencingContext {

    private static final ThreadLocal<@Nullable Scope> CURRENT = new ThreadLocal<>();

    private FencingContext() {}

    /** Binds {@code lease} to this thread until the scope is closed; calls carry its token. */
    public static Scope bind(Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        return open(lease::token, "lease of '" + lease.resource() + "'");
    }

    /** Binds {@code token} to this thread until the scope is closed; calls carry it. */
    public static Scope bind(FencingToken token) {
        if (token == null) {
            throw new IllegalArgumentException("token must not be null");
        }
        return open(() -> token, "token " + token);
    }

    /** The token of the innermost open scope on this thread; empty outside any scope. */
    public static Optional<FencingToken> currentToken() {
        Scope scope = current();
        return scope == null ? Optional.empty() : Optional.of(scope.token.get());
    }

    private static Scope open(Supplier<FencingToken> token, String what) {
        Scope scope = new Scope(token, current(), Thread.currentThread(), what);
        CURRENT.set(scope);
        return scope;
    }

    /** This thread's innermost scope not yet closed, forgetting the ones another thread closed. */
    private static @Nullable Scope current() {
        Scope bound = CURRENT.get();
        Scope scope = bound;
        while (scope != null && scope.closed) {
            scope = scope.outer;
        }
        if (scope != bound) {
            if (scope == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(scope);
            }
        }
        return scope;
    }

    /**
     * An open binding; closing it restores the one around it. Close it on the thread that opened it
     * (try-with-resources); closed on another thread, it ends the binding too.
     */
    public static final class Scope implements AutoCloseable {

        private final Supplier<FencingToken> token;
        private final @Nullable Scope outer;
        private final Thread owner;
        private final String what;
        private volatile boolean closed;

        private Scope(Supplier<FencingToken> token, @Nullable Scope outer, Thread owner, String what) {
            this.token = token;
            this.outer = outer;
            this.owner = owner;
            this.what = what;
        }

        /**
         * Ends the binding, and restores the one around it. Closing twice does nothing. Called on
         * another thread than the one that opened it, it ends the binding on the opening thread:
         * its calls stop carrying the token at once (scopes opened inside this one there stay
         * open until closed).
         *
         * @throws IllegalStateException if called on the opening thread while a scope opened
         *     inside this one is still open: the inner scopes are ended too, so that no token
         *     outlives the block that bound it on a pooled thread, and the misuse is reported
         */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            if (Thread.currentThread() != owner) {
                closed = true;
                return;
            }
            Scope current = current();
            boolean innerLeftOpen = current != this;
            for (Scope inner = current; inner != null && inner != this; inner = inner.outer) {
                inner.closed = true;
            }
            closed = true;
            if (outer == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(outer);
            }
            if (innerLeftOpen) {
                throw new IllegalStateException("the FencingContext scope of the " + what + " was closed while a scope"
                        + " opened inside it was still open; both are closed now (close each scope in the block that"
                        + " opened it: try-with-resources)");
            }
        }

        @Override
        public String toString() {
            return "FencingContext.Scope[" + what + (closed ? ", closed]" : "]");
        }
    }
}
