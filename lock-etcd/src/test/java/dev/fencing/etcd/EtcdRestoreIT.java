package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.servers.EtcdTestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
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
        return provider(FencingListener.NONE);
    }

    private EtcdLockProvider provider(FencingListener listener) {
        EtcdLockProvider provider = EtcdLockProvider.builder(etcd.endpoint()).requestTimeout(Duration.ofSeconds(3))
                .listener(listener).build();
        closing.add(0, provider);
        return provider;
    }

    private static FencingToken grantAndRelease(EtcdLockProvider provider, String resource) {
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            return lease.token();
        }
    }

    private void restart() {
        etcd.start();
        etcd.awaitHealthy(Duration.ofSeconds(30));
    }

    /**
     * The long-lived process grants nothing between the backup and the restore: it only renews a
     * lease it took before, and reads. Those answers carried the newer revisions another process's
     * grants made; after the restore it must not hand out a token at or below them, and its lease,
     * renewed by a server that went back, is lost.
     */
    @Test
    void aProviderThatOnlyRenewedAndReadSinceTheBackupRefusesToGrantAndLosesItsLease() {
        List<String> losses = new CopyOnWriteArrayList<>();
        EtcdLockProvider longLived = provider(new FencingListener() {
            @Override
            public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
                losses.add(reason);
            }
        });
        EtcdLockProvider other = provider();
        Lease held = longLived.tryAcquire("held", LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        grantAndRelease(other, "r");
        etcd.stop();
        Path backup = etcd.backUp();
        restart();

        FencingToken newest = null;
        for (int i = 0; i < 5; i++) {
            newest = grantAndRelease(other, "r");
        }
        held.renew(Duration.ofSeconds(30)); // answered with the revision the other process's grants raised
        longLived.inspect("r");

        etcd.stop();
        etcd.restore(backup);
        restart();

        long newestToken = newest.value();
        assertThatThrownBy(() -> longLived.tryAcquire("r", LeaseOptions.ofDefaults()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("went back")
                .satisfies(e -> assertThat(seenRevision(e.getMessage())).isGreaterThanOrEqualTo(newestToken));
        await("the refused grant given back").atMost(Duration.ofSeconds(10))
                .until(() -> longLived.inspect("r").orElseThrow().holder().isEmpty());
        assertThatThrownBy(() -> held.renew(Duration.ofSeconds(30))).isInstanceOf(LeaseLostException.class);
        assertThat(losses).singleElement().asString().contains("went back");
    }

    private static long seenRevision(String message) {
        Matcher seen = Pattern.compile("had seen revision (\\d+)").matcher(message);
        assertThat(seen.find()).as("the message names the revision seen: %s", message).isTrue();
        return Long.parseLong(seen.group(1));
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
                .hasMessageContaining("went back")
                .satisfies(e -> assertThat(seenRevision(e.getMessage())).isGreaterThanOrEqualTo(newestToken));
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
