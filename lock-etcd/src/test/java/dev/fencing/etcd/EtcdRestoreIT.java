package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.servers.EtcdTestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Old state comes back: etcd restored from a backup taken before grants it then forgets. Its
 * revision starts again from the backup's, so create revisions — the tokens — are handed out
 * again. A provider that saw the newer revisions refuses to grant until the revision passes them;
 * a provider that never saw them cannot tell (the documented limit), and the stores' marks refuse
 * its older tokens.
 */
class EtcdRestoreIT {

    private final EtcdTestServer etcd = EtcdTestServer.launch();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        etcd.stop();
    }

    private EtcdLockProvider provider() {
        EtcdLockProvider provider = EtcdLockProvider.builder(etcd.endpoint()).requestTimeout(Duration.ofSeconds(3))
                .build();
        closing.add(0, provider);
        return provider;
    }

    private static FencingToken grantAndRelease(EtcdLockProvider provider, String resource) {
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            return lease.token();
        }
    }

    @Test
    void aProviderThatSawNewerRevisionsRefusesToGrantAfterARestoreAndTheStoreRefusesTheRepeatedTokens() {
        EtcdLockProvider longLived = provider();
        grantAndRelease(longLived, "r");
        etcd.stop();
        Path backup = etcd.backUp();
        etcd.start();
        etcd.awaitHealthy(Duration.ofSeconds(30));

        FencedStore store = InMemoryFencedStore.create();
        FencingToken newest = null;
        for (int i = 0; i < 5; i++) {
            newest = grantAndRelease(longLived, "r");
        }
        store.write(newest, "k", "written by the newest holder before the restore");

        etcd.stop();
        etcd.restore(backup);
        etcd.start();
        etcd.awaitHealthy(Duration.ofSeconds(30));

        long newestToken = newest.value();
        assertThatThrownBy(() -> longLived.tryAcquire("r", LeaseOptions.ofDefaults()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("went backwards").hasMessageContaining(String.valueOf(newestToken));
        assertThatThrownBy(() -> longLived.tryAcquire("other", LeaseOptions.ofDefaults()))
                .as("the revision is global: every resource's grants are refused")
                .isInstanceOf(LockUnavailableException.class);

        // a process started after the restore cannot tell: its token repeats one handed out before
        EtcdLockProvider startedAfter = provider();
        try (Lease repeated = startedAfter.tryAcquire("r", LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(repeated.token().value()).isLessThan(newestToken);
            assertThatThrownBy(() -> store.write(repeated.token(), "k", "a write with a repeated token"))
                    .isInstanceOf(StaleTokenException.class);
        }
        assertThat(store.read("k").orElseThrow().value()).isEqualTo("written by the newest holder before the restore");
    }
}
