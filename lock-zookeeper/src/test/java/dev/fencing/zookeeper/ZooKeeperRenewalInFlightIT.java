package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.testkit.servers.PartitionProxy;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A renewal waiting for a server that no longer answers must not hold up the lease's loss: the
 * holder's link to ZooKeeper is cut (no byte passes either way, the connection stays open), a
 * renewal is in flight — the caller's or the watchdog's — and the lease must still be invalid one
 * session timeout after the start of its last request ZooKeeper answered, before the server ends
 * the session and another process takes the lock.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZooKeeperRenewalInFlightIT {

    private static final Duration SESSION = Duration.ofSeconds(4);
    /** Timer and scheduling slack on a loaded 2-core machine. */
    private static final Duration MARGIN = Duration.ofMillis(300);

    private final ZooKeeperTestServer zooKeeper = ZooKeeperTestServer.launch();
    private final PartitionProxy link = PartitionProxy.start("127.0.0.1", port(zooKeeper.connectString()));
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final String resource = "in-flight-" + Long.toHexString(ThreadLocalRandom.current().nextLong());

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable each : closing) {
            each.close();
        }
        link.close();
        zooKeeper.stop();
    }

    @Test
    void aCallersRenewalInFlightDoesNotDelayTheLossAfterACut() throws Exception {
        LossClock loss = new LossClock();
        ZooKeeperLockProvider holder = provider("127.0.0.1:" + link.port(), loss);
        ZooKeeperLockProvider next = provider(zooKeeper.connectString(), FencingListener.NONE);
        long requested = System.nanoTime();
        Lease lease = holder.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
        long lastAnswered = requested; // the start of the lease's last request ZooKeeper answered
        assertThat(negotiated(holder)).isEqualTo(SESSION);

        link.cut();
        long cut = System.nanoTime();
        CompletableFuture<Void> renewal = CompletableFuture.runAsync(() -> lease.renew(Duration.ofSeconds(30)));

        expectLostInTimeAndBeforeTheTakeover(lease, loss, next, lastAnswered, cut);
        await().atMost(Duration.ofSeconds(20)).until(renewal::isDone);
        assertThat(renewal).isCompletedExceptionally();
    }

    @Test
    void theWatchdogsRenewalInFlightDoesNotDelayTheLossAfterACut() throws Exception {
        LossClock loss = new LossClock();
        ZooKeeperLockProvider holder = provider("127.0.0.1:" + link.port(), loss);
        ZooKeeperLockProvider next = provider(zooKeeper.connectString(), FencingListener.NONE);
        // the watchdog renews every ttl / 3 = 2 s: before the client's read timeout (2/3 of the
        // 4 s session) notices the cut, so a renewal is in flight when SUSPENDED comes
        Lease lease = holder.tryAcquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(6)).autoRenew(true)
                .build()).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> loss.renewedAt.get() != 0);
        link.cut();
        long cut = System.nanoTime();
        // the renewal's start is a round trip before its answer: this bound is that much looser
        long lastAnswered = loss.renewedAt.get();

        expectLostInTimeAndBeforeTheTakeover(lease, loss, next, lastAnswered, cut);
    }

    /**
     * The lease is invalid (reported lost) one session timeout after {@code lastAnswered}, give or
     * take the margin; the next process, waiting in line, gets the lock only after that.
     */
    private void expectLostInTimeAndBeforeTheTakeover(Lease lease, LossClock loss, ZooKeeperLockProvider next,
            long lastAnswered, long cut) throws Exception {
        CompletableFuture<Lease> takeover = CompletableFuture.supplyAsync(() -> {
            Lease taken = waitFor(next, resource);
            loss.oldValidAtTakeover = lease.isValid();
            loss.takenAt = System.nanoTime();
            return taken;
        });
        await().atMost(SESSION.multipliedBy(4)).pollInterval(Duration.ofMillis(10)).until(() -> !lease.isValid());
        long invalidAt = System.nanoTime();
        Duration afterLastAnswered = Duration.ofNanos(invalidAt - lastAnswered);
        Duration afterCut = Duration.ofNanos(invalidAt - cut);
        Lease taken = takeover.get(30, TimeUnit.SECONDS);
        Duration takenAfterCut = Duration.ofNanos(loss.takenAt - cut);
        System.out.printf("lease invalid %d ms after the cut (%d ms after its last answered request); the next"
                + " holder got the lock %d ms after the cut%n", afterCut.toMillis(), afterLastAnswered.toMillis(),
                takenAfterCut.toMillis());
        assertThat(afterLastAnswered).as("invalid one session timeout after its last answered request")
                .isLessThanOrEqualTo(SESSION.plus(MARGIN));
        assertThat(loss.oldValidAtTakeover).as("the old lease was still valid when the next holder got the lock")
                .isFalse();
        assertThat(loss.lostAt.get()).as("reported lost").isNotZero();
        assertThat(taken.token().isNewerThan(lease.token())).isTrue();
        taken.release();
    }

    private ZooKeeperLockProvider provider(String connectString, FencingListener listener) {
        ZooKeeperLockProvider provider = ZooKeeperLockProvider.builder(connectString).sessionTimeout(SESSION)
                .connectTimeout(Duration.ofSeconds(5)).listener(listener).build();
        closing.add(0, provider);
        return provider;
    }

    private static Duration negotiated(ZooKeeperLockProvider provider) {
        return Duration.ofMillis(provider.curator().getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
    }

    private static int port(String connectString) {
        return Integer.parseInt(connectString.substring(connectString.lastIndexOf(':') + 1));
    }

    /** When the holder's lease was first renewed and lost, and what the next holder saw. */
    private static final class LossClock implements FencingListener {
        final AtomicLong renewedAt = new AtomicLong();
        final AtomicLong lostAt = new AtomicLong();
        volatile boolean oldValidAtTakeover = true;
        volatile long takenAt;

        @Override
        public void onRenewed(Lease lease) {
            renewedAt.compareAndSet(0, System.nanoTime());
        }

        @Override
        public void onLost(Lease lease, String reason, @Nullable Throwable cause) {
            lostAt.compareAndSet(0, System.nanoTime());
        }
    }

    /** The lock, waiting in line for up to 30 s. */
    private static Lease waitFor(ZooKeeperLockProvider provider, String resource) {
        try {
            return provider.acquire(resource, LeaseOptions.ofDefaults().withWaitTimeout(Duration.ofSeconds(30)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + resource, e);
        }
    }
}
