package dev.fencing.testkit;

import dev.fencing.core.LockProvider;

/**
 * A provider whose connection to its server passes through a fault the contract controls, for
 * {@link LockProviderContract#anUnclearFailureLeavesNoLockBehind}: while replies are held, the
 * server executes every command but its replies reach the provider only after the provider gave
 * up (its command or node timeout), so an acquire ends in an error after it may have taken the
 * lock. A provider module implements it over {@code LaggingProxy}.
 */
public interface UnclearReplies extends AutoCloseable {

    /** The provider behind the fault; it reaches the same server as the contract's provider. */
    LockProvider provider();

    /** From now on, replies arrive after the provider stopped waiting for them. */
    void holdReplies();

    /** From now on, replies pass at once. */
    void passReplies();

    /** Closes the provider and the fault. */
    @Override
    void close();

    /** The fault of {@code provider}, held and passed by {@code hold} and {@code pass}, closed by {@code close}. */
    static UnclearReplies of(LockProvider provider, Runnable hold, Runnable pass, Runnable close) {
        return new UnclearReplies() {
            @Override
            public LockProvider provider() {
                return provider;
            }

            @Override
            public void holdReplies() {
                hold.run();
            }

            @Override
            public void passReplies() {
                pass.run();
            }

            @Override
            public void close() {
                close.run();
            }
        };
    }
}
