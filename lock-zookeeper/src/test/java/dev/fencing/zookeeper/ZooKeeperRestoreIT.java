package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Old state comes back: a ZooKeeper server restored from a backup taken before grants it then
 * forgets. Its zxids continue from the backup's, so czxids — the tokens — are handed out again.
 * A provider that saw the newer ones refuses to grant until the zxid passes them; a provider
 * that never saw them cannot tell (the documented limit), and the stores' marks refuse its older
 * tokens.
 */
class ZooKeeperRestoreIT {

    private final ZooKeeperTestServer zooKeeper = ZooKeeperTestServer.launch();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        zooKeeper.stop();
    }

    private ZooKeeperLockProvider provider() {
        return provider(FencingListener.NONE);
    }

    private ZooKeeperLockProvider provider(FencingListener listener) {
        ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(zooKeeper.connectString())
                .connectTimeout(Duration.ofSeconds(2)).listener(listener).build();
        closing.add(0, provider);
        return provider;
    }

    private static FencingToken grantAndRelease(ZooKeeperLockProvider provider, String resource) {
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            return lease.token();
        }
    }

    /** The first grant after the server came back, retried while the client reconnects. */
    private static Optional<Lease> afterReconnect(ZooKeeperLockProvider provider, String resource) {
        return await().atMost(Duration.ofSeconds(30)).ignoreExceptionsMatching(e -> e instanceof LockUnavailableException
                        && !String.valueOf(e.getMessage()).contains("went back"))
                .until(() -> provider.tryAcquire(resource, LeaseOptions.ofDefaults()), Optional::isPresent);
    }

    /**
     * The long-lived process creates nothing between the backup and the restore: it only renews a
     * lease it took before. Its client saw the newer zxids another process's grants made (every
     * reply carries the server's last zxid); after the restore it must not hand out a czxid at or
     * below them, once its client has given up on the old session and connected afresh.
     */
    @Test
    void aProviderThatOnlyRenewedSinceTheBackupRefusesToGrantAfterARestore() {
        ZooKeeperLockProvider longLived = provider();
        ZooKeeperLockProvider other = provider();
        Lease held = longLived.tryAcquire("held", LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        grantAndRelease(other, "r");
        zooKeeper.stop();
        Path backup = zooKeeper.backUp();
        zooKeeper.start();

        afterReconnect(other, "r").orElseThrow().release();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptionsMatching(e -> e instanceof LockUnavailableException)
                .untilAsserted(() -> held.renew(Duration.ofSeconds(30)));
        FencingToken newest = null;
        for (int i = 0; i < 5; i++) {
            newest = grantAndRelease(other, "r");
        }
        held.renew(Duration.ofSeconds(30)); // answered by a server that had applied the other's grants

        zooKeeper.stop();
        zooKeeper.restore(backup);
        zooKeeper.start();

        long newestToken = newest.value();
        assertThatThrownBy(() -> afterReconnect(longLived, "r"))
                .as("no token at or below 0x%s", Long.toHexString(newestToken))
                .hasStackTraceContaining("went back");
    }

    @Test
    void aProviderThatSawNewerZxidsRefusesToGrantAfterARestoreAndTheStoreRefusesTheRepeatedTokens() {
        ZooKeeperLockProvider longLived = provider();
        grantAndRelease(longLived, "r");
        zooKeeper.stop();
        Path backup = zooKeeper.backUp();
        zooKeeper.start();

        FencedStore store = InMemoryFencedStore.create();
        afterReconnect(longLived, "r").orElseThrow().release();
        FencingToken newest = null;
        for (int i = 0; i < 5; i++) {
            newest = grantAndRelease(longLived, "r");
        }
        store.write(newest, "k", "written by the newest holder before the restore");

        zooKeeper.stop();
        zooKeeper.restore(backup);
        zooKeeper.start();

        long newestToken = newest.value();
        // the zxid it names is the newest this provider saw: the newest token, or a later zxid (a release, or a
        // reply to the provider's session checks)
        assertThatThrownBy(() -> afterReconnect(longLived, "r")).hasStackTraceContaining("went back")
                .satisfies(e -> {
                    java.util.regex.Matcher seen = java.util.regex.Pattern.compile("had seen zxid 0x([0-9a-f]+)")
                            .matcher(String.valueOf(e.getMessage()));
                    assertThat(seen.find()).as("the message names the zxid seen: %s", e.getMessage()).isTrue();
                    assertThat(Long.parseLong(seen.group(1), 16)).isGreaterThanOrEqualTo(newestToken);
                });

        // a process started after the restore cannot tell: its token repeats one handed out before
        ZooKeeperLockProvider startedAfter = provider();
        try (Lease repeated = startedAfter.tryAcquire("r", LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(repeated.token().value()).isLessThan(newestToken);
            assertThatThrownBy(() -> store.write(repeated.token(), "k", "a write with a repeated token"))
                    .isInstanceOf(StaleTokenException.class);
        }
        assertThat(store.read("k").orElseThrow().value()).isEqualTo("written by the newest holder before the restore");
    }
}
