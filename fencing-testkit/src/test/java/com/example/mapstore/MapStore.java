package com.example.mapstore;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StorageBasedFencedStore;
import dev.fencing.core.spi.WriteOutcome;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/** A third party's store: a shared map plays its server, ConcurrentMap.compute its one atomic conditional write. */
final class MapStore implements StorageAccessor<Long> {

    /** The server: every client (every MapStore) of one server sees the same items. */
    static final class Server {
        final ConcurrentMap<String, Snapshot<Long>> items = new ConcurrentHashMap<>();
        final AtomicLong versions = new AtomicLong();
    }

    private final Server server;

    private MapStore(Server server) {
        this.server = server;
    }

    static FencedStore connect(Server server, Policy policy) {
        return new StorageBasedFencedStore(new MapStore(server), policy, FencingListener.NONE, 100);
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        return Optional.ofNullable(server.items.get(key));
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        return writeIf(key, value, token, policy, current -> true);
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, String value, FencingToken token,
            Policy policy) {
        Long expectedVersion = expected == null ? null : expected.version();
        return writeIf(key, value, token, policy,
                current -> Objects.equals(current == null ? null : current.version(), expectedVersion));
    }

    /** One atomic step: the key's lock, the token against the mark and the version checked, then the write. */
    private WriteOutcome writeIf(String key, @Nullable String value, FencingToken token, Policy policy,
            Predicate<@Nullable Snapshot<Long>> unchanged) {
        WriteOutcome[] outcome = new WriteOutcome[1];
        server.items.compute(key, (k, current) -> {
            if (current != null && current.fencedByAnotherLockThan(token)) {
                outcome[0] = WriteOutcome.foreign(Objects.requireNonNull(current.resource()));
            } else if (current != null && !policy.accepts(token.value(), current.token())) {
                outcome[0] = WriteOutcome.stale(current.token());
            } else if (!unchanged.test(current)) {
                outcome[0] = WriteOutcome.conflict();
            } else {
                outcome[0] = WriteOutcome.written();
                return new Snapshot<>(value, token.value(), token.resource(), server.versions.incrementAndGet());
            }
            return current;
        });
        return outcome[0];
    }
}
