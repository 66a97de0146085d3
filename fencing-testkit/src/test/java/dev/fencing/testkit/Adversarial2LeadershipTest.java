package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Backoff;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Second adversarial round on {@link Leadership}, against the fixed campaign path (acquireAsync
 * outside the candidate's lock, on a worker): failures of acquireAsync that the campaign does not
 * expect, stop() racing a grant, stop() from a listener, and epochs across lost terms.
 */
class Adversarial2LeadershipTest {

    private static final Duration FIVE_S = Duration.ofSeconds(5);
    private static final Duration LONG_TTL = Duration.ofSeconds(30);
    private static final LeaseOptions PROBE = LeaseOptions.ofTtl(LONG_TTL);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final InMemoryLockServer server = new InMemoryLockServer();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private LockProvider provider() {
        return closing(InMemoryLockProvider.builder().server(server).build());
    }

    /** Whether a third provider can take {@code lock} right now (and gives it back). */
    private static boolean free(LockProvider probe, String lock) {
        Optional<Lease> lease = probe.tryAcquire(lock, PROBE);
        lease.ifPresent(Lease::close);
        return lease.isPresent();
    }

    /**
     * Attack (FAILS): a provider's acquireAsync throws a checked exception synchronously — a
     * provider written in Kotlin (no checked exceptions) whose client throws {@code IOException}
     * ("Connection reset") before handing back its future; an {@code Error} such as
     * {@code NoClassDefFoundError} from a lazily loaded driver takes the same path. The first
     * campaign fails normally (server unreachable), so the retry runs from the timer on a worker;
     * {@code campaignFromTimer} catches only RuntimeException, so the exception escapes the
     * worker and nothing schedules another campaign: the candidate is RUNNING but never campaigns
     * again, with no log line of its own and no listener event. The synchronous
     * RuntimeException of the same call is retried with the backoff.
     */
    @Test
    void aCheckedExceptionThrownByAcquireAsyncMustNotEndTheCampaignSilently() {
        LockProvider provider = new Scripted(provider(), call -> switch (call) {
            case 1 -> CompletableFuture.failedFuture(LockUnavailableException.unreachable("sneaky", "down", null));
            case 2 -> throw Scripted.<RuntimeException>sneaky(new IOException("Connection reset"));
            default -> null;
        });
        Leadership leadership = closing(Leadership.builder(provider, "sneaky").ttl(LONG_TTL)
                .reelectionBackoff(Backoff.fixed(Duration.ofMillis(20))).start());
        await("re-elected after one synchronous IOException").dontCatchUncaughtExceptions().atMost(FIVE_S)
                .until(leadership::isLeader);
    }

    /**
     * Attack (FAILS): the campaign's future ends in a {@link java.util.concurrent.CancellationException}
     * that stop() did not cause — a client library that cancels its pending commands when its
     * connection resets (Lettuce, Netty promises), or a wrapping provider whose inner future was
     * cancelled. campaignEnded takes every cancellation for "stopped" and returns, with the
     * state still RUNNING: the candidate never campaigns again and never logs why. The lock is free
     * the whole time.
     */
    @Test
    void aCancellationTheCandidateDidNotAskForMustNotEndTheCampaign() {
        LockProvider provider = new Scripted(provider(), call -> {
            if (call == 1) {
                CompletableFuture<Lease> reset = new CompletableFuture<>();
                reset.cancel(false); // the client's connection reset cancelled the pending command
                return reset;
            }
            return null;
        });
        Leadership leadership = closing(Leadership.builder(provider, "cancelled").ttl(LONG_TTL)
                .reelectionBackoff(Backoff.fixed(Duration.ofMillis(20))).start());
        await("elected after a cancellation it did not ask for").atMost(FIVE_S).until(leadership::isLeader);
    }

    /**
     * Attack (FAILS): an {@link IllegalStateException} from a provider that is not closed — an
     * attempt whose client library throws one ("pool not started", "connection not ready");
     * {@code AbstractLockProvider} fails the future with whatever the attempt threw. Leadership
     * reads every IllegalStateException as "the provider is closed" and stops campaigning for
     * good (state STOPPED, a WARN line, no listener event), although every other
     * RuntimeException is retried with the backoff. The provider is open and the lock is free.
     */
    @Test
    void anIllegalStateExceptionFromAnOpenProviderMustNotEndTheCampaignForever() {
        LockProvider inner = provider();
        LockProvider provider = new Scripted(inner, call -> call == 1
                ? CompletableFuture.failedFuture(new IllegalStateException("connection pool not started yet"))
                : null);
        Leadership leadership = closing(Leadership.builder(provider, "not-closed").ttl(LONG_TTL)
                .reelectionBackoff(Backoff.fixed(Duration.ofMillis(20))).start());
        await("elected although the open provider failed one attempt with an IllegalStateException")
                .atMost(FIVE_S).until(leadership::isLeader);
    }

    /**
     * A documented window (the attack found it; stop()'s Javadoc states it): the server granted B's campaign, but
     * B's provider has not yet returned from acquireAsync (the slow provider of round 1, now run
     * outside the candidate's lock). B.stop() is called after the grant and returns at once — it
     * cannot see the campaign — and the lock stays held by B's grant after stop() returned, for as
     * long as acquireAsync keeps the worker: the next candidate is not elected "at once", although
     * B is stopped. Only when acquireAsync returns does the stopped campaign give the grant back:
     * the test asserts that it then does, at once (not after the 30 s TTL), and that B never leads.
     */
    @Test
    void aGrantMadeBeforeStopIsGivenBackWhenTheSlowProviderReturns() throws Exception {
        CountDownLatch granted = new CountDownLatch(1);
        CountDownLatch slowReturn = new CountDownLatch(1);
        LockProvider probe = provider();
        LockProvider[] inner = {provider()};
        LockProvider pB = new Scripted(inner[0], call -> {
            if (call == 1) { // unreachable: the retry runs on a worker, where a slow acquireAsync no longer blocks stop()
                return CompletableFuture.failedFuture(LockUnavailableException.unreachable("slow", "down", null));
            }
            if (call == 2) {
                CompletableFuture<Lease> grant = inner[0].acquireAsync("slow", LeaseOptions.builder().ttl(LONG_TTL)
                        .waitTimeout(Duration.ofMinutes(1)).autoRenew(true).build());
                grant.join(); // the server granted the lock
                granted.countDown();
                try {
                    slowReturn.await(30, TimeUnit.SECONDS); // ... but the provider is slow to hand back its future
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return grant;
            }
            return null;
        });
        Leadership b = closing(Leadership.builder(pB, "slow").ttl(LONG_TTL)
                .reelectionBackoff(Backoff.fixed(Duration.ofMillis(10))).start());
        try {
            assertThat(granted.await(5, TimeUnit.SECONDS)).isTrue();
            b.stop();
            assertThat(b.isLeader()).isFalse();
            slowReturn.countDown();
            await().atMost(FIVE_S).until(() -> free(probe, "slow")); // the TTL is 30 s
            assertThat(b.isLeader()).isFalse();
        } finally {
            slowReturn.countDown();
        }
    }

    /**
     * Coverage (passes): stop() called from inside onElected, on the event worker. It releases the
     * term synchronously and queues onRevoked behind the running callback: no deadlock, it returns,
     * the lock is free at once, and the events are exactly elected then revoked STOPPED. A second
     * stop() from another thread while the listener's stop() runs returns too.
     */
    @Test
    void stopFromInsideOnElectedReturnsFreesTheLockAndEndsTheTermOnce() {
        LockProvider probe = provider();
        AtomicReference<Leadership> self = new AtomicReference<>();
        CountDownLatch stopReturned = new CountDownLatch(1);
        List<String> heard = new CopyOnWriteArrayList<>();
        Leadership leadership = closing(Leadership.builder(provider(), "self-stop").ttl(LONG_TTL)
                .listener(new LeadershipListener() {
                    @Override
                    public void onElected(Term term) {
                        heard.add("elected " + term.epoch().value());
                        await().atMost(FIVE_S).until(() -> self.get() != null);
                        self.get().stop();
                        heard.add("stop returned");
                        stopReturned.countDown();
                    }

                    @Override
                    public void onRevoked(Term term, RevocationReason reason) {
                        heard.add("revoked " + term.epoch().value() + " " + reason);
                    }
                }).build());
        self.set(leadership);
        leadership.start();
        await("stop() called from onElected returns").atMost(FIVE_S).until(() -> stopReturned.getCount() == 0);
        leadership.stop(); // a second stop() after the listener's returns at once
        assertThat(leadership.isLeader()).isFalse();
        assertThat(leadership.currentTerm()).isEmpty();
        assertThat(free(probe, "self-stop")).as("the lock is free once stop() returned").isTrue();
        await().atMost(FIVE_S).untilAsserted(() -> assertThat(heard)
                .containsExactly("elected 1", "stop returned", "revoked 1 STOPPED"));
    }

    /**
     * Coverage (passes): eight threads call stop() at once on a leader whose release answers
     * after 300 ms. Every call returns only after the release answered, isLeader() is false as
     * each returns, and the lock is free.
     */
    @Test
    void eightConcurrentStopsAllReturnOnlyAfterTheReleaseAnswered() throws Exception {
        LockProvider probe = provider();
        AtomicReference<Long> releaseAnsweredAt = new AtomicReference<>();
        LockProvider slowRelease = new Scripted(provider(), call -> null) {
            @Override
            Lease wrap(Lease lease) {
                return new DelegatingLease(lease) {
                    @Override
                    public void release() {
                        try {
                            Thread.sleep(300); // the attack: a slow release round trip
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        super.release();
                        releaseAnsweredAt.compareAndSet(null, System.nanoTime());
                    }
                };
            }
        };
        Leadership leadership = closing(Leadership.builder(slowRelease, "stops").ttl(LONG_TTL).start());
        await().atMost(FIVE_S).until(leadership::isLeader);
        CountDownLatch go = new CountDownLatch(1);
        List<String> problems = new CopyOnWriteArrayList<>();
        List<Thread> stoppers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int n = i;
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                leadership.stop();
                Long answered = releaseAnsweredAt.get();
                if (answered == null) {
                    problems.add("stopper " + n + " returned before the release answered");
                }
                if (leadership.isLeader()) {
                    problems.add("stopper " + n + " saw isLeader() after stop()");
                }
            });
            t.start();
            stoppers.add(t);
        }
        go.countDown();
        for (Thread t : stoppers) {
            t.join(10_000);
        }
        assertThat(problems).isEmpty();
        assertThat(free(probe, "stops")).isTrue();
    }

    /**
     * Coverage (passes): two candidates, the leader's lease released behind its back five times
     * (each a LOST term, then a re-election, either candidate). Epochs never repeat and strictly
     * increase in election order; per candidate the events alternate elected/revoked, exactly
     * once per term, each revoked naming the term just elected.
     */
    @Test
    void lostTermsNeverReuseAnEpochAndEachTermIsHeardOnceInOrder() {
        List<String> heardA = new CopyOnWriteArrayList<>();
        List<String> heardB = new CopyOnWriteArrayList<>();
        List<Long> elections = new CopyOnWriteArrayList<>();
        Leadership a = closing(candidate("epochs", heardA, elections));
        Leadership b = closing(candidate("epochs", heardB, elections));
        for (int i = 1; i <= 5; i++) {
            int expected = i;
            await().atMost(FIVE_S).until(() -> elections.size() >= expected && (a.isLeader() || b.isLeader()));
            Leadership leader = a.isLeader() ? a : b;
            leader.currentTerm().ifPresent(term -> term.lease().release());
        }
        await().atMost(FIVE_S).until(() -> elections.size() >= 6);
        a.stop();
        b.stop();
        assertThat(elections).doesNotHaveDuplicates().isSorted();
        await().atMost(FIVE_S).untilAsserted(() -> {
            assertAlternates(heardA);
            assertAlternates(heardB);
            assertThat(heardA.size() + heardB.size()).isEqualTo(2 * elections.size());
        });
    }

    private Leadership candidate(String lock, List<String> heard, List<Long> elections) {
        return Leadership.builder(provider(), lock).ttl(LONG_TTL)
                .reelectionBackoff(Backoff.fixed(Duration.ofMillis(10)))
                .listener(new LeadershipListener() {
                    @Override
                    public void onElected(Term term) {
                        elections.add(term.epoch().value());
                        heard.add("elected " + term.epoch().value());
                    }

                    @Override
                    public void onRevoked(Term term, RevocationReason reason) {
                        heard.add("revoked " + term.epoch().value());
                    }
                }).start();
    }

    private static void assertAlternates(List<String> heard) {
        assertThat(heard.size() % 2).as("%s", heard).isZero();
        for (int i = 0; i < heard.size(); i += 2) {
            String epoch = heard.get(i).substring("elected ".length());
            assertThat(heard.get(i)).as("%s", heard).startsWith("elected ");
            assertThat(heard.get(i + 1)).as("%s", heard).isEqualTo("revoked " + epoch);
        }
    }

    /**
     * Coverage (passes): the provider of a campaigning candidate is closed while another leads.
     * The pending acquireAsync fails, the candidate stops campaigning without any event, never
     * believes it leads, and its stop() returns at once; when the leader stops, nothing of the
     * closed candidate's holds the lock.
     */
    @Test
    void aProviderClosedWhileItsCandidateCampaignsEndsTheCampaignQuietly() {
        LockProvider probe = provider();
        Leadership a = closing(Leadership.builder(provider(), "closing").ttl(LONG_TTL).start());
        await().atMost(FIVE_S).until(a::isLeader);
        LockProvider pB = provider();
        List<String> heardB = new CopyOnWriteArrayList<>();
        Leadership b = closing(Leadership.builder(pB, "closing").ttl(LONG_TTL).listener(new LeadershipListener() {
            @Override
            public void onElected(Term term) {
                heardB.add("elected");
            }
        }).start());
        pB.close();
        a.stop();
        assertThat(free(probe, "closing")).isTrue();
        assertThat(b.isLeader()).isFalse();
        b.stop();
        assertThat(heardB).isEmpty();
    }

    /** A provider whose acquireAsync follows a script per call (1-based); null means pass it on. */
    private static class Scripted implements LockProvider {
        private final LockProvider delegate;
        private final IntFunction<CompletableFuture<Lease>> script;
        private final AtomicInteger calls = new AtomicInteger();

        Scripted(LockProvider delegate, IntFunction<CompletableFuture<Lease>> script) {
            this.delegate = delegate;
            this.script = script;
        }

        @SuppressWarnings("unchecked")
        static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
            throw (E) t;
        }

        Lease wrap(Lease lease) {
            return lease;
        }

        @Override
        public Optional<Lease> tryAcquire(String resource, LeaseOptions options) {
            return delegate.tryAcquire(resource, options).map(this::wrap);
        }

        @Override
        public Lease acquire(String resource, LeaseOptions options) throws InterruptedException {
            return wrap(delegate.acquire(resource, options));
        }

        @Override
        public CompletableFuture<Lease> acquireAsync(String resource, LeaseOptions options) {
            CompletableFuture<Lease> scripted = script.apply(calls.incrementAndGet());
            CompletableFuture<Lease> inner = scripted != null ? scripted : delegate.acquireAsync(resource, options);
            if (inner.isCancelled()) {
                return inner;
            }
            CompletableFuture<Lease> outer = inner.thenApply(this::wrap);
            outer.whenComplete((lease, failure) -> {
                if (outer.isCancelled()) {
                    inner.cancel(false);
                }
            });
            return outer;
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    /** A lease passing every call to another. */
    private static class DelegatingLease implements Lease {
        private final Lease delegate;

        DelegatingLease(Lease delegate) {
            this.delegate = delegate;
        }

        @Override
        public String resource() {
            return delegate.resource();
        }

        @Override
        public dev.fencing.core.FencingToken token() {
            return delegate.token();
        }

        @Override
        public String ownerId() {
            return delegate.ownerId();
        }

        @Override
        public Duration remaining() {
            return delegate.remaining();
        }

        @Override
        public boolean isValid() {
            return delegate.isValid();
        }

        @Override
        public dev.fencing.core.FencingToken requireValidFor(Duration margin) {
            return delegate.requireValidFor(margin);
        }

        @Override
        public void renew(Duration ttl) {
            delegate.renew(ttl);
        }

        @Override
        public void release() {
            delegate.release();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
