package dev.fencing.cli.readme;

import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * docs/architecture.md's skeleton of a new store's conditional primitive, package-private behind
 * {@link MyFencedStore}: compiled by the build (never run), found in the docs by {@link DocsSnippetsTest}.
 */
final class MyStoreAccessor implements StorageAccessor<Long> {

    private final String endpoint;

    MyStoreAccessor(String endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public Optional<Snapshot<Long>> load(String key) {
        // one read: the value (null for a tombstone), the mark, the lock the key is bound to, a version
        throw new UnsupportedOperationException("read the item under key at " + endpoint);
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        // ONE atomic conditional write: policy accepts token against the mark, and the key is bound to
        // no lock or to token.resource(); otherwise WriteOutcome.stale(mark) or WriteOutcome.foreign(lock)
        throw new UnsupportedOperationException("token-guarded write");
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<Long> expected, String value,
            FencingToken token, Policy policy) {
        // the same condition, and the item still as expected (same version, or still absent):
        // otherwise WriteOutcome.conflict(), and the core loads again
        throw new UnsupportedOperationException("token- and version-guarded write");
    }

}
