package dev.fencing.testkit;

import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Stores whose connection to the server passes through a fault the contract controls, for
 * {@link FencedStoreContract}'s lost-reply cases: once armed, the server carries out the next
 * write request, its reply is lost, a given action runs in the window (another writer), and the
 * store's client sees a dropped connection. A store module implements it over the testkit's
 * {@link ReplyDroppingProxy} ({@link #through}); the reference store over
 * {@link InMemoryStorage#loseNextWriteReply}.
 */
public interface LostReplies extends AutoCloseable {

    /**
     * A store with {@code policy} on the contract's server whose replies pass through the fault;
     * like {@link FencedStoreContract#createStore}, each call returns an instance with its own
     * client. The contract writes through it once before arming the fault, so whatever a client
     * does only on first use (loading a script, describing a table) is behind it.
     */
    FencedStore store(Policy policy);

    /**
     * The reply to the next request that writes an item (not a read, not a connection handshake)
     * is lost after the server carried the request out; {@code inTheWindow} runs after that and
     * before the client learns that the connection is gone.
     */
    void loseNextWriteReply(Runnable inTheWindow);

    /** How many replies were lost so far. */
    int lost();

    /**
     * Whether the store proves a landed write of its own (a write id, a marker kept with the item):
     * a lost reply with nobody writing in the window must then end as "written", not as
     * {@link dev.fencing.core.WriteOutcomeUnknownException}.
     */
    boolean provesItsOwnWrites();

    /** Closes the fault (the stores' clients are closed by whoever opened them). */
    @Override
    void close();

    /**
     * The fault of {@code stores}: {@code lose} arms it, {@code lost} counts the lost replies,
     * {@code close} closes it.
     */
    static LostReplies of(Function<Policy, FencedStore> stores, Consumer<Runnable> lose, IntSupplier lost,
            boolean provesItsOwnWrites, Runnable close) {
        Objects.requireNonNull(stores, "stores");
        Objects.requireNonNull(lose, "lose");
        Objects.requireNonNull(lost, "lost");
        Objects.requireNonNull(close, "close");
        return new LostReplies() {
            @Override
            public FencedStore store(Policy policy) {
                return stores.apply(policy);
            }

            @Override
            public void loseNextWriteReply(Runnable inTheWindow) {
                lose.accept(inTheWindow);
            }

            @Override
            public int lost() {
                return lost.getAsInt();
            }

            @Override
            public boolean provesItsOwnWrites() {
                return provesItsOwnWrites;
            }

            @Override
            public void close() {
                close.run();
            }
        };
    }

    /**
     * The fault of stores that reach their server through {@code proxy}: the reply to the next
     * request whose bytes contain {@code writeMarker} (e.g. {@code "UPDATE fencing_store SET"}, an
     * HTTP method, a command name) is dropped, or the next reply of any kind when the marker is
     * null. Closing it closes the proxy.
     */
    static LostReplies through(ReplyDroppingProxy proxy, @Nullable String writeMarker, boolean provesItsOwnWrites,
            Function<Policy, FencedStore> stores) {
        Objects.requireNonNull(proxy, "proxy");
        return of(stores, inTheWindow -> {
            if (writeMarker == null) {
                proxy.dropNextReply(inTheWindow);
            } else {
                proxy.dropReplyTo(writeMarker, inTheWindow);
            }
        }, proxy::dropped, provesItsOwnWrites, proxy::close);
    }
}
