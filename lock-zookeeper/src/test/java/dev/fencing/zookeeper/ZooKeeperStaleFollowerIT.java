package dev.fencing.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.Skip;
import dev.fencing.testkit.history.LeaseOverlap;
import dev.fencing.testkit.history.LeaseOverlapChecker;
import dev.fencing.testkit.history.LeaseSpan;
import dev.fencing.testkit.servers.NetworkLab;
import dev.fencing.testkit.servers.ZooKeeperLabEnsemble;
import dev.fencing.testkit.servers.ZooKeeperLabMember;
import dev.fencing.testkit.servers.ZooKeeperTestServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The "stale follower" schedule (docs/guarantees.md): a 3-member ZooKeeper ensemble whose members
 * live in network namespaces of their own; the holder's client reaches only a follower, which is
 * then cut from the other two while the holder still reaches it. The follower answers reads from
 * its own copy for {@code syncLimit × tickTime} (10 s here), long after the leader ended the
 * holder's session (4 s) and another client, on the leader, took the lock. The lease rule of the
 * history checks ({@link LeaseOverlapChecker}, bound zero) must find no two valid leases at once
 * with the provider as built — and must catch the deliberately broken variant whose renewals read
 * without a {@code sync} ({@code Builder.confirmWithoutSync()}), which is what shows the schedule
 * can fail.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ZooKeeperStaleFollowerIT {

    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int SYNC_LIMIT_TICKS = 10;

    private static NetworkLab lab;
    private static ZooKeeperLabEnsemble ensemble;

    @BeforeAll
    static void startEnsemble() {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("needs network namespaces: " + reason));
        lab = NetworkLab.create();
        ensemble = ZooKeeperLabEnsemble.launchIn(lab, 3, SYNC_LIMIT_TICKS);
    }

    @AfterAll
    static void stopEnsemble() {
        if (ensemble != null) {
            ensemble.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    @AfterEach
    void heal() {
        lab.heal();
        ensemble.members().forEach(m -> m.awaitHealthy(Duration.ofSeconds(60)));
    }

    @Test
    void aFollowerCutFromItsLeaderKeepsNoLeaseValidOnceAnotherClientHoldsTheLock() {
        Run run = cutTheHoldersFollower(UnaryOperator.identity());
        assertThat(run.overlaps()).as("two valid leases at once: %s", run).isEmpty();
    }

    @Test
    void theVariantThatConfirmsWithoutASyncIsCaught() {
        Run run = cutTheHoldersFollower(ZooKeeperLockProvider.Builder::confirmWithoutSync);
        assertThat(run.overlaps()).as("the broken variant's overlap: %s", run).isNotEmpty();
    }

    private record Run(LeaseSpan holder, LeaseSpan taker, List<LeaseOverlap> overlaps) {

        /** The holder's last valid moment and the taker's grant, from the holder's grant, and the overlaps. */
        String describe() {
            return "holder last told valid at " + (holder.lastValidNanos() - holder.grantedNanos()) / 1_000_000
                    + " ms, taker granted at " + (taker.grantedNanos() - holder.grantedNanos()) / 1_000_000 + " ms; "
                    + (overlaps.isEmpty() ? "no overlap" : overlaps.toString());
        }
    }

    /**
     * Takes a lease through a follower, cuts that follower from the other members, and watches the
     * holder's lease and another client's attempts on the leader until the other client holds the
     * lock and the holder's lease is no longer valid.
     */
    private static Run cutTheHoldersFollower(UnaryOperator<ZooKeeperLockProvider.Builder> variant) {
        ZooKeeperLabMember leader = ensemble.awaitLeader(Duration.ofSeconds(60));
        ZooKeeperLabMember follower = ensemble.members().stream().filter(m -> m != leader).findFirst().orElseThrow();
        String lock = "stale-follower-" + System.nanoTime();
        try (ZooKeeperLockProvider holder = variant.apply(builder(follower)).build();
                ZooKeeperLockProvider taker = builder(leader).build()) {
            Lease held = holder.tryAcquire(lock, LeaseOptions.ofTtl(TTL).withAutoRenew(true)).orElseThrow();
            long granted = System.nanoTime();
            AtomicReference<LeaseSpan> holderSpan = new AtomicReference<>(new LeaseSpan("holder on " + follower.name(),
                    lock, held.token().value(), granted, granted));
            AtomicReference<LeaseSpan> takerSpan = new AtomicReference<>();
            ensemble.members().stream().filter(m -> m != follower).forEach(m -> lab.cut(follower.name(), m.name()));
            try {
                await("the other client holds the lock and the holder's lease is over").atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(50)).until(() -> {
                            long asked = System.nanoTime();
                            if (held.isValid()) {
                                holderSpan.set(holderSpan.get().seenValidAt(asked));
                            }
                            if (takerSpan.get() == null) {
                                tryAcquire(taker, lock).ifPresent(lease -> {
                                    long at = System.nanoTime();
                                    takerSpan.set(new LeaseSpan("taker on " + leader.name(), lock,
                                            lease.token().value(), at, at));
                                });
                            }
                            return takerSpan.get() != null && !held.isValid();
                        });
            } finally {
                lab.heal();
            }
            Run run = new Run(holderSpan.get(), takerSpan.get(),
                    LeaseOverlapChecker.check(List.of(holderSpan.get(), takerSpan.get()), Duration.ZERO));
            System.err.println("stale follower schedule: " + run.describe());
            return run;
        }
    }

    private static ZooKeeperLockProvider.Builder builder(ZooKeeperLabMember member) {
        return ZooKeeperLockProvider.builder(member.connectString()).sessionTimeout(SESSION)
                .serverTickTime(ZooKeeperTestServer.TICK_TIME).connectTimeout(Duration.ofSeconds(10));
    }

    private static Optional<Lease> tryAcquire(ZooKeeperLockProvider provider, String lock) {
        try {
            return provider.tryAcquire(lock, LeaseOptions.ofTtl(TTL));
        } catch (LockUnavailableException e) {
            return Optional.empty();
        }
    }
}
