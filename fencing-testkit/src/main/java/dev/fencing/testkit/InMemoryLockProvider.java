package dev.fencing.testkit;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.ProviderBuilder;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link dev.fencing.core.LockProvider} in this JVM's memory: the reference implementation of
 * the contract, and a stand-in for a real provider in users' unit tests. Providers
 * {@linkplain Builder#server built on} one {@link InMemoryLockServer} share locks and tokens, like
 * processes sharing a lock server. Tokens start at 1 per resource and live as long as the server.
 * A release wakes the waiters of every connected provider at once.
 */
public final class InMemoryLockProvider extends AbstractLockProvider {

    private final InMemoryLockServer server;
    private final Consumer<String> wakeWaiters = resource -> releaseSignals().signal(resource);

    private InMemoryLockProvider(Builder builder, InMemoryLockServer server) {
        super(builder, "fencing-inmemory-async");
        this.server = server;
        server.onRelease(wakeWaiters);
    }

    /** A provider with a server of its own, on the system clock, without a listener. */
    public static InMemoryLockProvider create() {
        return builder().build();
    }

    /**
     * A builder: a server of its own, the system clock, the shared watchdog and no listener unless
     * set. Providers built with one {@link Builder#server} share locks and tokens.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Configures an {@link InMemoryLockProvider}; every setting is optional. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private @Nullable InMemoryLockServer server;

        private Builder() {}

        /** The server whose locks and tokens this provider shares with others; default a new one per provider. */
        public Builder server(InMemoryLockServer server) {
            this.server = Checks.requireNonNull("server", server);
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The provider. */
        public InMemoryLockProvider build() {
            return new InMemoryLockProvider(this, server != null ? server : new InMemoryLockServer());
        }
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        String ownerId = OwnerIds.random();
        long token;
        try {
            token = server.tryLock(resource, ownerId, clock().nanoTime(), requestedAtNanos + options.ttl().toNanos());
        } catch (LockUnavailableException unclear) {
            // the server may have granted it: give back what nobody will be handed (owner-checked)
            server.unlock(resource, ownerId, clock().nanoTime());
            throw unclear;
        }
        if (token == 0) {
            return Optional.empty();
        }
        return Optional.of(new InMemoryLease(FencingToken.of(resource, token), ownerId, requestedAtNanos, options.ttl()));
    }

    @Override
    protected void doClose() {
        server.removeReleaseListener(wakeWaiters);
    }

    private final class InMemoryLease extends AbstractLease {
        InMemoryLease(FencingToken token, String ownerId, long requestedAtNanos, Duration ttl) {
            super(token, ownerId, requestedAtNanos, ttl, clock(), listener());
        }

        @Override
        protected boolean doRenew(Duration ttl) {
            return server.renew(resource(), ownerId(), clock().nanoTime(), ttl);
        }

        @Override
        protected boolean doRelease() {
            return server.unlock(resource(), ownerId(), clock().nanoTime());
        }
    }
}
