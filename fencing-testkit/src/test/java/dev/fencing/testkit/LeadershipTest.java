package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.LockProvider;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Leadership}'s argument checks and life cycle, on the in-memory provider. */
class LeadershipTest {

    private final LockProvider provider = InMemoryLockProvider.create();

    @AfterEach
    void close() {
        provider.close();
    }

    @Test
    void refusesBadArgumentsBeforeAnyIo() {
        assertThatThrownBy(() -> Leadership.builder(null, "l")).hasMessage("provider must not be null");
        assertThatThrownBy(() -> Leadership.builder(provider, " ")).hasMessageContaining("lock name must not be blank");
        assertThatThrownBy(() -> Leadership.builder(provider, null)).hasMessage("lock name must not be null");
        assertThatThrownBy(() -> Leadership.builder(provider, "l").ttl(Duration.ofMillis(49)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leadership ttl must be between PT0.05S and PT168H, got PT0.049S");
        assertThatThrownBy(() -> Leadership.builder(provider, "l").ttl(Duration.ofNanos(100_000_001)))
                .hasMessageContaining("whole number of milliseconds");
        assertThatThrownBy(() -> Leadership.builder(provider, "l").listener(null))
                .hasMessage("listener must not be null");
        assertThatThrownBy(() -> Leadership.builder(provider, "l").reelectionBackoff(null))
                .hasMessage("reelectionBackoff must not be null");
    }

    @Test
    void runsOnceAndStopIsIdempotent() {
        Leadership leadership = Leadership.builder(provider, "once").ttl(Duration.ofSeconds(5)).start();
        assertThatThrownBy(leadership::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already started");
        await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
        leadership.stop();
        leadership.close();
        assertThat(leadership.isLeader()).isFalse();
        assertThat(leadership.currentEpoch()).isEmpty();
        assertThatThrownBy(leadership::start).hasMessageContaining("stopped; build a new one");
    }

    /** A term won, lost and stepped down from is logged without a listener; several listeners all hear it. */
    @Test
    void termsAreLoggedAndEveryListenerOfAllHearsThemEvenAfterOneThrows() {
        String name = "logged-" + Long.toHexString(System.nanoTime());
        List<String> first = new CopyOnWriteArrayList<>();
        List<String> second = new CopyOnWriteArrayList<>();
        LeadershipListener throwing = new LeadershipListener() {
            @Override
            public void onElected(Term term) {
                first.add("elected");
                throw new IllegalStateException("a broken listener");
            }
        };
        LeadershipListener counting = new LeadershipListener() {
            @Override
            public void onElected(Term term) {
                second.add("elected " + term.epoch().value());
            }

            @Override
            public void onRevoked(Term term, RevocationReason reason) {
                second.add("revoked " + reason);
            }
        };
        try (LogLines log = LogLines.containing("'" + name + "'")) {
            log.showWarningsOf(Leadership.class.getName());
            Leadership leadership = Leadership.builder(provider, name).ttl(Duration.ofSeconds(5))
                    .listener(LeadershipListener.all(throwing, counting)).start();
            await().atMost(Duration.ofSeconds(10)).until(() -> second.size() == 1);
            long epoch = leadership.currentEpoch().orElseThrow().value();
            leadership.currentTerm().orElseThrow().lease().release(); // lost: released behind the candidate's back
            await().atMost(Duration.ofSeconds(10)).until(() -> second.size() >= 2);
            assertThat(second.get(1)).isEqualTo("revoked LOST");
            await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
            leadership.stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> second.size() == 4);
            assertThat(first).hasSize(2);
            assertThat(second).hasSize(4).startsWith("elected " + epoch, "revoked LOST").endsWith("revoked STOPPED");
            assertThat(second.get(2)).startsWith("elected ").isNotEqualTo("elected " + epoch);
            await().atMost(Duration.ofSeconds(10)).until(() -> log.lines().stream()
                    .anyMatch(line -> line.contains("Stepped down as leader of '" + name + "'")));
            assertThat(log.lines()).anyMatch(line -> line.contains("Elected leader of '" + name + "' with epoch " + epoch))
                    .anyMatch(line -> line.contains("WARN") && line.contains("Lost the leadership of '" + name
                            + "' (epoch " + epoch + ")"));
        }
        assertThatThrownBy(() -> LeadershipListener.all(counting, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("listener 1 of 2 is null");
    }

    @Test
    void startOnAClosedProviderThrows() {
        provider.close();
        assertThatThrownBy(() -> Leadership.builder(provider, "closed").start())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aThrowingListenerDoesNotStopTheTerms() {
        List<String> heard = new CopyOnWriteArrayList<>();
        Leadership leadership = Leadership.builder(provider, "throwing").ttl(Duration.ofSeconds(5))
                .listener(new LeadershipListener() {
                    @Override
                    public void onElected(Term term) {
                        heard.add("elected " + term.epoch().value());
                        throw new IllegalStateException("a broken listener");
                    }

                    @Override
                    public void onRevoked(Term term, RevocationReason reason) {
                        heard.add("revoked " + term.epoch().value() + " " + reason);
                    }
                }).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 1);
        leadership.currentTerm().orElseThrow().lease().release();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 3);
        leadership.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 4);
        assertThat(heard).containsExactly("elected 1", "revoked 1 LOST", "elected 2", "revoked 2 STOPPED");
    }

    @Test
    void isLeaderEndsWithTheLeasesLocalValidityNotWithTheNextCheck() {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        LockProvider manual = InMemoryLockProvider.builder().server(new InMemoryLockServer()).clock(now::get).listener(dev.fencing.core.FencingListener.NONE).build();
        try {
            // a 60 s TTL: the validity check runs every 6 s of real time, the watchdog every 20 s
            Leadership leadership = Leadership.builder(manual, "manual").ttl(Duration.ofSeconds(60)).start();
            await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
            now.addAndGet(Duration.ofSeconds(60).toNanos());
            assertThat(leadership.isLeader()).isFalse();
            assertThat(leadership.currentTerm()).isEmpty();
            assertThat(leadership.currentEpoch()).isEmpty();
            leadership.stop();
        } finally {
            manual.close();
        }
    }

    @Test
    void aTermsEpochIsItsLeasesToken() {
        Leadership leadership = Leadership.builder(provider, "epoch").ttl(Duration.ofSeconds(5)).start();
        await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
        Term term = leadership.currentTerm().orElseThrow();
        assertThat(term.epoch()).isEqualTo(term.lease().token());
        assertThat(leadership.currentEpoch()).contains(term.epoch());
        assertThat(leadership.toString()).contains("leading with epoch 1");
        assertThatThrownBy(() -> new Term(dev.fencing.core.FencingToken.of("epoch", 9), term.lease(), term.electedAt()))
                .hasMessageContaining("a term's epoch must be its lease's token");
        leadership.stop();
    }
}
