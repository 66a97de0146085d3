package dev.fencing.cli.commands;

import dev.fencing.cli.backends.Fault;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LockProvider;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.Term;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The leadership mode of {@code torture}: candidates campaign for one name; each, while it leads,
 * writes its epoch to a fenced store. At random a leader is made a zombie (its term's lease is
 * released behind its back, it pauses 1.5 TTLs, then writes with its old epoch) or hands over
 * gracefully ({@code stop()}, then campaigns again). Every sighting of {@code isLeader()} goes to a
 * {@link LeadershipHistory}, which checks one leader per epoch, no two beliefs at once, and epochs
 * that increase; the store's calls go to the history checker as in the other mode.
 *
 * <p>The candidates share the command's one lock client: the lock server still arbitrates between
 * their owner ids, but a release wakes them in this process without the server's notice.
 */
final class LeadershipTorture {

    private final LockProvider locks;
    private final FencedStore store;
    private final String name;
    private final Duration ttl;
    private final double pauseProbability;
    private final LeadershipHistory history;
    final AtomicLong writesAccepted = new AtomicLong();
    final AtomicLong writesRefused = new AtomicLong();
    final AtomicLong writesFailed = new AtomicLong();
    final AtomicLong zombieWritesRefused = new AtomicLong();
    final AtomicLong zombieWritesAccepted = new AtomicLong();
    final AtomicLong handOvers = new AtomicLong();

    LeadershipTorture(LockProvider locks, FencedStore store, String name, Duration ttl, double pauseProbability) {
        this.locks = locks;
        this.store = store;
        this.name = name;
        this.ttl = ttl;
        this.history = new LeadershipHistory(ttl);
        this.pauseProbability = pauseProbability;
    }

    /** Runs {@code candidates} candidates until {@code deadline} (nanos), injecting {@code faults} on a thread of its own. */
    void run(int candidates, long deadline, List<Fault> faults, Duration faultInterval, AtomicLong injected)
            throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < candidates; c++) {
            String candidate = "candidate-" + c;
            Thread thread = new Thread(() -> campaign(candidate, deadline), "torture-" + candidate);
            thread.start();
            threads.add(thread);
        }
        Thread faulter = new Thread(() -> FaultInjector.run(faults, faultInterval, deadline, injected), "torture-faults");
        faulter.setDaemon(true);
        faulter.start();
        for (Thread thread : threads) {
            thread.join();
        }
        faulter.interrupt();
        faulter.join();
    }

    LeadershipHistory history() {
        return history;
    }

    private void campaign(String candidate, long deadline) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Leadership leadership = Leadership.builder(locks, name).ttl(ttl).start();
        try {
            while (System.nanoTime() < deadline) {
                long before = System.nanoTime();
                Optional<Term> term = leadership.currentTerm();
                long after = System.nanoTime();
                if (term.isPresent()) {
                    FencingToken epoch = term.get().epoch();
                    history.sighted(candidate, epoch.value(), before, after);
                    write(epoch, candidate, false);
                    double dice = random.nextDouble();
                    if (dice < pauseProbability / 2) {
                        term.get().lease().close(); // the lease is lost behind the leader's back
                        Thread.sleep(ttl.multipliedBy(3).dividedBy(2).toMillis()); // the simulated GC pause
                        write(epoch, candidate, true); // the late write of a zombie: its old epoch
                    } else if (dice < pauseProbability) {
                        leadership.stop();
                        handOvers.incrementAndGet();
                        leadership = Leadership.builder(locks, name).ttl(ttl).start();
                    }
                }
                Thread.sleep(Math.max(1, ttl.toMillis() / 10));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            writesFailed.incrementAndGet(); // a provider closed under a fault; the checks still run
        } finally {
            leadership.stop();
        }
    }

    private void write(FencingToken epoch, String candidate, boolean zombie) {
        try {
            store.write(epoch, name, candidate + " epoch " + epoch.value());
            (zombie ? zombieWritesAccepted : writesAccepted).incrementAndGet();
        } catch (StaleTokenException refused) {
            (zombie ? zombieWritesRefused : writesRefused).incrementAndGet();
        } catch (RuntimeException failed) {
            writesFailed.incrementAndGet();
        }
    }
}
