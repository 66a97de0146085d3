package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Fencing;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StorageBasedFencedStore;
import dev.fencing.core.spi.WriteOutcome;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class FencingHelpersTest {

    private final InMemoryLockProvider provider = InMemoryLockProvider.create();

    @Test
    void withLeaseRunsTheBodyAndReleases() throws Exception {
        AtomicReference<Lease> seen = new AtomicReference<>();
        FencedStore store = InMemoryFencedStore.create();
        String result = Fencing.withLease(provider, "r", LeaseOptions.ofDefaults(), lease -> {
            seen.set(lease);
            store.write(lease.token(), "k", "v");
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(seen.get().isValid()).isFalse();
        assertThat(provider.tryAcquire("r", LeaseOptions.ofDefaults())).isPresent();
    }

    @Test
    void withLeaseReleasesWhenTheBodyThrows() {
        assertThatThrownBy(() -> Fencing.runWithLease(provider, "r", LeaseOptions.ofDefaults(), lease -> {
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        assertThat(provider.tryAcquire("r", LeaseOptions.ofDefaults())).isPresent();
    }

    @Test
    void aStoreTellsItsListenerOfEveryRefusal() {
        RecordingListener listener = new RecordingListener();
        FencedStore store = InMemoryFencedStore.builder().listener(listener).build();
        store.write(FencingToken.of("r", 5), "k", "v");
        assertThatThrownBy(() -> store.write(FencingToken.of("r", 4), "k", "old")).isInstanceOf(StaleTokenException.class);
        assertThat(listener.staleRejected()).isEqualTo(1);
    }

    @Test
    void anUpdateThatKeepsLosingRacesGivesUpClearly() {
        StorageAccessor<Long> alwaysChanged = new StorageAccessor<>() {
            @Override
            public Optional<Snapshot<Long>> load(String key) {
                return Optional.of(new Snapshot<>("v", 1, "r", 1L));
            }

            @Override
            public WriteOutcome write(String key, String value, FencingToken token, Policy policy) {
                return WriteOutcome.written();
            }

            @Override
            public WriteOutcome writeIfUnchanged(String key, Snapshot<Long> expected, String value,
                    FencingToken token, Policy policy) {
                return WriteOutcome.conflict();
            }
        };
        FencedStore store = new StorageBasedFencedStore(alwaysChanged, Policy.MONOTONIC, FencingListener.NONE, 3);
        assertThatThrownBy(() -> store.update(FencingToken.of("r", 2), "k", v -> "x"))
                .isInstanceOf(ConcurrentUpdateException.class)
                .hasMessageContaining("gave up after 3 attempts");
        assertThatThrownBy(() -> new StorageBasedFencedStore(alwaysChanged, Policy.MONOTONIC, null, 0))
                .hasMessageContaining("between 1 and 1000, got 0");
    }
}
