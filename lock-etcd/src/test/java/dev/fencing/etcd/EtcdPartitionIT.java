package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.Skip;
import dev.fencing.testkit.servers.EtcdClusterTestServer;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.NetworkLab;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A 3-member etcd cluster whose members live in network namespaces of their own, cut apart for
 * real ({@link NetworkLab}): the partitions the loopback tests cannot make, where a client still
 * reaches a member that has lost its majority.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdPartitionIT {

    private static final Duration TTL = Duration.ofSeconds(2);

    private static NetworkLab lab;
    private static EtcdClusterTestServer cluster;

    @BeforeAll
    static void startCluster() {
        NetworkLab.unavailable().ifPresent(reason -> Skip.unlessCi("EtcdPartitionIT needs network namespaces: " + reason));
        lab = NetworkLab.create();
        cluster = EtcdClusterTestServer.launchIn(lab, 3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        if (lab != null) {
            lab.close();
        }
    }

    /**
     * The holder's client reaches only the leader, which is then cut from the other two members
     * (the holder still reaches it): the holder cannot renew through a member without a majority,
     * its lease is no longer valid by the time the majority's side grants the lock to another
     * client, with a greater token, and the holder's late write is refused. After the heal, the old
     * leader's side grants above both tokens.
     */
    @Test
    void aHolderBehindAMemberCutFromItsMajorityLosesTheLockToTheMajority() {
        EtcdTestServer leader = cluster.awaitLeader(Duration.ofSeconds(30));
        List<EtcdTestServer> others = cluster.members().stream().filter(m -> m != leader).toList();
        FencedStore store = InMemoryFencedStore.create();
        String resource = "partition-" + System.nanoTime();
        try (EtcdLockProvider behindTheCut = providerOn(List.of(leader));
                EtcdLockProvider majority = providerOn(others)) {
            Lease held = behindTheCut.tryAcquire(resource, LeaseOptions.ofTtl(TTL)).orElseThrow();
            FencingToken old = held.token();
            long majorityToken;
            store.write(old, "k", "before the cut");
            others.forEach(other -> lab.cut(leader.name(), other.name()));
            try {
                Lease taken = await("the majority's side grants the lock").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> tryAcquire(majority, resource), Optional::isPresent).orElseThrow();
                assertThat(held.isValid()).as("the cut-off holder's lease once another client holds the lock").isFalse();
                assertThat(taken.token().value()).as("the majority's token").isGreaterThan(old.value());
                majorityToken = taken.token().value();
                store.write(taken.token(), "k", "after the cut");
                assertThatThrownBy(() -> held.renew(TTL)).as("renewing through a member without a majority")
                        .isInstanceOfAny(LeaseLostException.class, LockUnavailableException.class);
                assertThatThrownBy(() -> store.write(old, "k", "the zombie's write"))
                        .isInstanceOf(StaleTokenException.class);
                taken.release();
            } finally {
                lab.heal();
            }
            Lease after = await("the healed old leader's side grants again").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> tryAcquire(behindTheCut, resource), Optional::isPresent).orElseThrow();
            assertThat(after.token().value()).as("a grant after the heal").isGreaterThan(majorityToken);
            after.release();
        }
    }

    /**
     * A leader that does not know it was deposed renews leases on its own (etcd before 3.4.25 and
     * 3.5.8 answers a keep-alive from its local lessor without asking its majority): the leader is
     * cut from the other two and frozen until they elect a new leader, then thawed — still cut,
     * still believing it leads — and the holder, whose client reaches only it, renews at once. The
     * renewal must not count: it throws, and the holder's lease is no longer valid when the new
     * leader's side grants the lock. A provider that trusted the keep-alive alone would extend its
     * lease past the new leader's grant.
     */
    @Test
    void aRenewalAnsweredByADeposedLeaderDoesNotExtendTheLease() {
        EtcdTestServer leader = cluster.awaitLeader(Duration.ofSeconds(30));
        List<EtcdTestServer> others = cluster.members().stream().filter(m -> m != leader).toList();
        String resource = "deposed-" + System.nanoTime();
        try (EtcdLockProvider behindTheCut = providerOn(List.of(leader));
                EtcdLockProvider majority = providerOn(others)) {
            Lease held = behindTheCut.tryAcquire(resource, LeaseOptions.ofTtl(TTL)).orElseThrow();
            others.forEach(other -> lab.cut(leader.name(), other.name()));
            try {
                leader.pause();
                try {
                    await("a new leader among the other two").atMost(Duration.ofSeconds(30))
                            .until(() -> others.stream().anyMatch(EtcdTestServer::isLeader));
                } finally {
                    leader.resume();
                }
                assertThatThrownBy(() -> held.renew(TTL)).as("a renewal only a deposed leader answered")
                        .isInstanceOfAny(LockUnavailableException.class, LeaseLostException.class);
                Lease taken = await("the new leader's side grants the lock").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> tryAcquire(majority, resource), Optional::isPresent).orElseThrow();
                assertThat(held.isValid()).as("the holder's lease once the new leader's side granted the lock")
                        .isFalse();
                assertThat(taken.token().value()).isGreaterThan(held.token().value());
                taken.release();
            } finally {
                lab.heal();
            }
        }
    }

    /** A provider whose client reaches {@code members} only. */
    private static EtcdLockProvider providerOn(List<EtcdTestServer> members) {
        return EtcdLockProvider.builder(members.stream().map(EtcdTestServer::endpoint).toArray(String[]::new))
                .requestTimeout(Duration.ofSeconds(3)).build();
    }

    private static Optional<Lease> tryAcquire(EtcdLockProvider provider, String resource) {
        try {
            return provider.tryAcquire(resource, LeaseOptions.ofTtl(TTL));
        } catch (LockUnavailableException e) {
            return Optional.empty();
        }
    }
}
