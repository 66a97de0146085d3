package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The contract of {@link Leadership} on a provider: one leader among several candidates, each
 * with a client of its own (as processes have); epochs that strictly increase; a graceful stop
 * that hands over well before the TTL; a lost term noticed within its TTL, with its epoch refused
 * by a fenced store once the next leader wrote; re-election after a lost term. Extend it in the
 * provider's module with one small class that builds clients of a real server.
 *
 * <p>Every election is checked against every other candidate of the test: when a candidate hears
 * {@code onElected} while its term is valid, no other candidate may see {@code isLeader()} true.
 * Waits are on conditions (Awaitility), never fixed sleeps.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LeadershipContract {

    private final List<LockProvider> providers = new ArrayList<>();
    private final List<Candidate> candidates = new CopyOnWriteArrayList<>();
    private final List<String> overlaps = new CopyOnWriteArrayList<>();
    private String lock;

    /** A new, independent client of the real server: a candidate in a process of its own. */
    protected abstract LockProvider createProvider();

    /**
     * The TTL of the terms in the tests that wait for a lease to lapse: short enough to wait out,
     * long enough for a slow machine's renewals.
     */
    protected Duration ttl() {
        return Duration.ofMillis(1500);
    }

    /**
     * A client whose server can be made to fall silent for it (its replies held), for the test of a
     * leader that loses its server; empty skips that test. The contract closes it.
     */
    protected Optional<UnclearReplies> silencedClient() {
        return Optional.empty();
    }

    /** Why {@link #silencedClient()} is empty, printed with the skip; override it with the reason. */
    protected String whyNoSilencedClient() {
        return "override silencedClient()";
    }

    @BeforeEach
    void nameTheLock(TestInfo info) {
        lock = "leader-" + info.getTestMethod().map(m -> m.getName()).orElse("test") + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
    }

    @AfterEach
    void stopCandidates() {
        candidates.forEach(c -> c.leadership.stop());
        providers.forEach(LockProvider::close);
        assertThat(overlaps).as("elections while another candidate believed it led").isEmpty();
    }

    /** A started candidate for this test's lock, on a client of its own. */
    protected Candidate candidate(String name, Duration ttl) {
        LockProvider provider = createProvider();
        providers.add(provider);
        return candidateOn(name, provider, ttl);
    }

    private Candidate candidateOn(String name, LockProvider provider, Duration ttl) {
        Candidate candidate = new Candidate(name, provider, ttl);
        candidates.add(candidate);
        candidate.leadership.start();
        return candidate;
    }

    private Candidate awaitLeader(List<Candidate> among) {
        return await("a leader among " + among).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    List<Candidate> leaders = among.stream().filter(c -> c.leadership.isLeader()).toList();
                    assertThat(leaders).as("candidates leading at once").hasSizeLessThanOrEqualTo(1);
                    return leaders.isEmpty() ? null : leaders.get(0);
                }, c -> c != null);
    }

    @Test
    void oneOfThreeCandidatesLeadsAndKeepsItsTermWhileItRenews() {
        List<Candidate> three = List.of(candidate("a", ttl()), candidate("b", ttl()), candidate("c", ttl()));
        Candidate leader = awaitLeader(three);
        FencingToken epoch = leader.leadership.currentEpoch().orElseThrow();

        Holds.throughout("one leader, with its first epoch", ttl().multipliedBy(3), () -> three.stream().filter(c -> c.leadership.isLeader()).toList().equals(List.of(leader))
                        && leader.leadership.currentEpoch().orElseThrow().equals(epoch));
        assertThat(three).allSatisfy(c -> assertThat(c.revoked).isEmpty());
        assertThat(three.stream().mapToInt(c -> c.elected.size()).sum()).isEqualTo(1);
        assertThat(epoch.resource()).isEqualTo(lock);
    }

    @Test
    void epochsStrictlyIncreaseFromTermToTerm() {
        List<Candidate> running = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            running.add(candidate("c" + i, Duration.ofSeconds(30)));
        }
        List<Long> epochs = new ArrayList<>();
        for (int term = 0; term < 4; term++) {
            Candidate leader = awaitLeader(running);
            epochs.add(leader.leadership.currentEpoch().orElseThrow().value());
            leader.leadership.stop();
            running.remove(leader);
            await().atMost(Duration.ofSeconds(10)).until(() -> leader.revoked.size() == 1);
            assertThat(leader.revoked.get(0).reason()).isEqualTo(RevocationReason.STOPPED);
            assertThat(leader.revoked.get(0).term().epoch().value()).isEqualTo(epochs.get(term));
        }
        assertThat(epochs).as("epochs in term order").isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aStoppedLeaderHandsOverWellBeforeItsTtl() {
        Duration longTtl = Duration.ofSeconds(30);
        List<Candidate> two = List.of(candidate("a", longTtl), candidate("b", longTtl));
        Candidate leader = awaitLeader(two);
        Candidate other = two.get(0) == leader ? two.get(1) : two.get(0);

        long stoppedAt = System.nanoTime();
        leader.leadership.stop();
        assertThat(leader.leadership.isLeader()).isFalse();
        await("the other candidate's election").atMost(longTtl.dividedBy(3)).pollInterval(Duration.ofMillis(10))
                .until(() -> other.leadership.isLeader());
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(longTtl.dividedBy(3));
        assertThat(other.leadership.currentEpoch().orElseThrow().isNewerThan(leader.elected.get(0).epoch())).isTrue();
    }

    @Test
    void aLeaderWhoseClientStopsIsRevokedWithinItsTtlAndItsEpochIsRefusedAfterTheNextLeaderWrote() {
        List<Candidate> three = List.of(candidate("a", ttl()), candidate("b", ttl()), candidate("c", ttl()));
        Candidate old = awaitLeader(three);
        FencingToken oldEpoch = old.leadership.currentEpoch().orElseThrow();
        FencedStore store = InMemoryFencedStore.create();
        store.write(oldEpoch, "config", "written by the old leader");

        long cutAt = System.nanoTime();
        old.provider.close(); // renewals stop: the term's lease lapses, as when the leader loses its server
        await("the old leader's revocation").atMost(ttl().plusSeconds(2)).until(() -> old.revoked.size() == 1);
        assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).isLessThan(ttl().plusSeconds(2));
        assertThat(old.revoked.get(0).reason()).isEqualTo(RevocationReason.LOST);
        assertThat(old.leadership.isLeader()).isFalse();
        assertThat(old.leadership.currentEpoch()).isEmpty();

        Candidate next = awaitLeader(three.stream().filter(c -> c != old).toList());
        FencingToken nextEpoch = next.leadership.currentEpoch().orElseThrow();
        assertThat(nextEpoch.isNewerThan(oldEpoch)).isTrue();
        store.write(nextEpoch, "config", "written by the next leader");
        assertThatThrownBy(() -> store.write(oldEpoch, "config", "a late write of the old leader"))
                .isInstanceOf(StaleTokenException.class);
        assertThat(store.read("config").orElseThrow().value()).isEqualTo("written by the next leader");
    }

    @Test
    void aLeaderWhoseServerFallsSilentIsRevokedWithinItsTtlAndTheNextLeadersEpochWins() {
        Optional<UnclearReplies> offered = silencedClient();
        if (offered.isEmpty()) {
            Skip.because(getClass().getSimpleName() + " offers no silenced client: " + whyNoSilencedClient());
            return;
        }
        try (UnclearReplies silence = offered.get()) {
            Candidate cut = candidateOn("cut", silence.provider(), ttl());
            awaitLeader(List.of(cut));
            Candidate other = candidate("other", ttl());
            FencingToken cutEpoch = cut.leadership.currentEpoch().orElseThrow();
            FencedStore store = InMemoryFencedStore.create();
            store.write(cutEpoch, "config", "written by the leader before its server fell silent");

            long silencedAt = System.nanoTime();
            silence.holdReplies();
            await("the silenced leader's revocation").atMost(ttl().plusSeconds(2)).until(() -> cut.revoked.size() == 1);
            assertThat(Duration.ofNanos(System.nanoTime() - silencedAt)).isLessThan(ttl().plusSeconds(2));
            assertThat(cut.revoked.get(0).reason()).isEqualTo(RevocationReason.LOST);
            assertThat(cut.leadership.isLeader()).isFalse();

            awaitLeader(List.of(other));
            FencingToken otherEpoch = other.leadership.currentEpoch().orElseThrow();
            assertThat(otherEpoch.isNewerThan(cutEpoch)).isTrue();
            store.write(otherEpoch, "config", "written by the next leader");
            assertThatThrownBy(() -> store.write(cutEpoch, "config", "a late write of the silenced leader"))
                    .isInstanceOf(StaleTokenException.class);
            cut.leadership.stop();
            silence.passReplies();
        }
    }

    @Test
    void isLeaderTurnsFalseWithTheTermsLeaseEvenBeforeTheRevocationIsHeard() {
        Candidate only = candidate("a", ttl());
        Candidate leader = awaitLeader(List.of(only));
        Term term = leader.leadership.currentTerm().orElseThrow();
        leader.provider.close();

        await().atMost(ttl().plusSeconds(2)).pollInterval(Duration.ofMillis(1)).until(() -> !term.isValid());
        assertThat(leader.leadership.isLeader()).as("isLeader() once the term's lease is invalid").isFalse();
        assertThat(leader.leadership.currentTerm()).isEmpty();
    }

    @Test
    void aCandidateWhoseTermWasLostIsElectedAgainWithAGreaterEpoch() {
        Candidate only = candidate("a", ttl());
        await("the first election").atMost(Duration.ofSeconds(30)).until(() -> !only.elected.isEmpty());
        Term first = only.elected.get(0); // not currentTerm(): on a busy machine the term may have lapsed already

        try {
            first.lease().release(); // the term's lease ends behind the leadership's back
        } catch (LeaseLostException lapsedFirst) {
            // it lapsed before the release: lost all the same
        }
        // the first term's own revocation and the next election, looked up by term: on a busy machine a later term
        // may lapse too (a renewal slower than the TTL), which adds a revocation and an election of its own
        await("the lost term's revocation").atMost(Duration.ofSeconds(10))
                .until(() -> only.revoked.contains(new Revocation(first, RevocationReason.LOST)));
        await("the re-election").atMost(Duration.ofSeconds(10))
                .until(() -> only.elected.indexOf(first) + 1 < only.elected.size());
        Term second = only.elected.get(only.elected.indexOf(first) + 1);
        assertThat(second.epoch().isNewerThan(first.epoch())).isTrue();
        only.leadership.currentTerm().ifPresent(current -> assertThat(current.epoch().compareTo(second.epoch()))
                .as("the current term is the second or a later one").isNotNegative());
    }

    @Test
    void aStoppedCandidateIsNeverElected() {
        Candidate leader = candidate("a", ttl());
        awaitLeader(List.of(leader));
        Candidate stopped = candidate("b", ttl());
        stopped.leadership.stop();
        leader.leadership.stop();
        Candidate last = candidate("c", ttl());
        awaitLeader(List.of(last));
        assertThat(stopped.elected).isEmpty();
        assertThat(stopped.leadership.isLeader()).isFalse();
    }

    /** A revocation heard by a candidate. */
    protected record Revocation(Term term, RevocationReason reason) {}

    /** One candidate of a test: its client, its leadership and what its listener heard. */
    protected final class Candidate implements LeadershipListener {
        final String name;
        final LockProvider provider;
        final Leadership leadership;
        final List<Term> elected = new CopyOnWriteArrayList<>();
        final List<Revocation> revoked = new CopyOnWriteArrayList<>();

        Candidate(String name, LockProvider provider, Duration ttl) {
            this.name = name;
            this.provider = provider;
            this.leadership = Leadership.builder(provider, lock).ttl(ttl).listener(this).build();
        }

        @Override
        public void onElected(Term term) {
            elected.add(term);
            for (Candidate other : candidates) {
                // the other first: a term valid after that read was valid during it
                boolean otherLeads = other != this && other.leadership.isLeader();
                if (otherLeads && term.isValid()) {
                    overlaps.add(name + " elected with " + term.epoch() + " while " + other.name + " led with "
                            + other.leadership.currentEpoch());
                }
            }
        }

        @Override
        public void onRevoked(Term term, RevocationReason reason) {
            revoked.add(new Revocation(term, reason));
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
