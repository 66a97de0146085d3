package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.AcquireOutcome;
import dev.fencing.core.Backoff;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.leader.Leadership;
import dev.fencing.core.leader.LeadershipListener;
import dev.fencing.core.leader.RevocationReason;
import dev.fencing.core.leader.Term;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Adversarial tests of {@link Leadership}: listeners that throw errors, providers that stall the
 * shared timer, releases that hang under concurrent stops, stop racing a grant on its way, and
 * unclear replies to a campaign's acquire.
 */
class AdversarialLeadershipTest {

    private static final Duration FIVE_S = Duration.ofSeconds(5);

    private final List<AutoCloseable> toClose = new ArrayList<>();

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

    /**
     * Attack: a listener throws an {@link Error} (an {@code AssertionError} from an assertion in a
     * callback, a {@code StackOverflowError}) rather than a RuntimeException. The serial event
     * queue catches only RuntimeException, so the drain loop dies with {@code draining} left true:
     * every later event of this leadership is queued forever and never delivered — the
     * onRevoked of the running term, and every later onElected. The listener's contract says "an
     * exception thrown by a callback is logged and otherwise ignored" and "every term ends with
     * exactly one onRevoked".
     */
    @Test
    void aListenerThrowingAnErrorMustNotSilenceEveryLaterEvent() {
        LockProvider provider = closing(InMemoryLockProvider.create());
        List<String> heard = new CopyOnWriteArrayList<>();
        Leadership leadership = closing(Leadership.builder(provider, "erroring").ttl(FIVE_S)
                .reelectionBackoff(Backoff.fixed(Duration.ofMillis(10)))
                .listener(new LeadershipListener() {
                    @Override
                    public void onElected(Term term) {
                        heard.add("elected " + term.epoch().value());
                        if (term.epoch().value() == 1) {
                            throw new AssertionError("a listener's failed assertion");
                        }
                    }

                    @Override
                    public void onRevoked(Term term, RevocationReason reason) {
                        heard.add("revoked " + term.epoch().value() + " " + reason);
                    }
                }).start());
        // Awaitility would otherwise fail on the Error escaping the worker; we judge the events
        await().dontCatchUncaughtExceptions().atMost(FIVE_S).until(() -> heard.size() == 1);
        leadership.currentTerm().orElseThrow().lease().release(); // end term 1: LOST, then term 2
        await().dontCatchUncaughtExceptions().atMost(FIVE_S).until(() -> leadership.currentEpoch().map(FencingToken::value).orElse(0L) == 2L);
        leadership.stop();
        await().dontCatchUncaughtExceptions().atMost(FIVE_S).untilAsserted(() -> assertThat(heard)
                .as("events after a listener threw an Error")
                .containsExactly("elected 1", "revoked 1 LOST", "elected 2", "revoked 2 STOPPED"));
    }

    /**
     * Attack: one slow provider stalls every leadership of the JVM. A re-campaign after a failure
     * (or a lost term) calls {@code provider.acquireAsync} on the single shared TIMER thread. A
     * provider whose acquireAsync does a synchronous round trip before handing back its future (a
     * naive third-party provider, a client blocked on a connection pool or DNS) therefore blocks
     * the one thread that runs every other leadership's validity check and backoff: candidate B on
     * a healthy provider loses its lease, {@code isLeader()} turns false (it reads the lease), but
     * B's onRevoked — and its re-election — wait for A's server. Guarantee 5: a slow server must
     * not delay other candidates' revocation.
     */
    @Test
    void aProviderBlockingInAcquireAsyncMustNotDelayAnotherCandidatesRevocation() throws Exception {
        CountDownLatch blockedOnTimer = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        String[] blockedThread = new String[1];
        LockProvider healthy = closing(InMemoryLockProvider.create());
        LockProvider slowDelegate = closing(InMemoryLockProvider.create());
        AtomicInteger calls = new AtomicInteger();
        LockProvider slow = new Delegating(slowDelegate) {
            @Override
            public CompletableFuture<Lease> acquireAsync(String resource, LeaseOptions options) {
                int call = calls.incrementAndGet();
                if (call == 1) { // the server is unreachable: the candidate re-campaigns from the timer
                    return CompletableFuture.failedFuture(
                            LockUnavailableException.unreachable(resource, "the slow server", null));
                }
                if (call == 2) { // the slow server: the re-campaign's request blocks for a while
                    blockedThread[0] = Thread.currentThread().getName();
                    blockedOnTimer.countDown();
                    try {
                        unblock.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.acquireAsync(resource, options);
            }
        };
        try {
            List<String> heardByB = new CopyOnWriteArrayList<>();
            Leadership b = closing(Leadership.builder(healthy, "healthy-lock").ttl(FIVE_S)
                    .listener(new LeadershipListener() {
                        @Override
                        public void onRevoked(Term term, RevocationReason reason) {
                            heardByB.add("revoked " + term.epoch().value() + " " + reason);
                        }
                    }).start());
            await().atMost(FIVE_S).until(b::isLeader);
            closing(Leadership.builder(slow, "slow-lock").ttl(FIVE_S)
                    .reelectionBackoff(Backoff.fixed(Duration.ofMillis(10))).start());
            assertThat(blockedOnTimer.await(5, TimeUnit.SECONDS)).isTrue();

            b.currentTerm().orElseThrow().lease().release(); // B loses its term (released behind its back)
            assertThat(b.isLeader()).isFalse(); // the lease is read directly: holds

            // B's check runs every ttl/10 = 500 ms: its revocation is due well within 2 s
            await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(heardByB)
                    .as("B's revocation while thread %s is blocked in A's provider", blockedThread[0])
                    .containsExactly("revoked 1 LOST"));
        } finally {
            unblock.countDown(); // never leave the JVM-wide timer stuck for the other tests
        }
    }

    /**
     * Coverage (passes): a listener that blocks forever in onElected holds one worker, not the
     * shared timer or the other leaderships' queues: another candidate's loss is still heard on
     * time, and the blocked candidate's own isLeader still follows its lease.
     */
    @Test
    void aBlockedListenerOfOneCandidateDoesNotDelayAnothersRevocation() {
        CountDownLatch never = new CountDownLatch(1);
        try {
            LockProvider p1 = closing(InMemoryLockProvider.create());
            LockProvider p2 = closing(InMemoryLockProvider.create());
            Leadership blocked = closing(Leadership.builder(p1, "blocked").ttl(FIVE_S)
                    .listener(new LeadershipListener() {
                        @Override
                        public void onElected(Term term) {
                            try {
                                never.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    }).start());
            List<String> heard = new CopyOnWriteArrayList<>();
            Leadership other = closing(Leadership.builder(p2, "other").ttl(FIVE_S)
                    .listener(new LeadershipListener() {
                        @Override
                        public void onRevoked(Term term, RevocationReason reason) {
                            heard.add("revoked " + reason);
                        }
                    }).start());
            await().atMost(FIVE_S).until(() -> blocked.isLeader() && other.isLeader());
            blocked.currentTerm().orElseThrow().lease().release();
            other.currentTerm().orElseThrow().lease().release();
            assertThat(blocked.isLeader()).isFalse();
            await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> assertThat(heard).contains("revoked LOST"));
        } finally {
            never.countDown();
        }
    }

    /**
     * Attack: two threads stop the same leader (a shutdown hook and the application's own close,
     * a try-with-resources and an explicit stop) while the release is slow. stop() promises to
     * return "once the release has answered", so a caller may exit the process or hand over right
     * after it. The second stop() sees state STOPPED and returns at once, while the first is still
     * waiting for the release: the lock is still held on the server when it returns, and the next
     * candidate waits for the TTL.
     */
    @Test
    void aConcurrentSecondStopMustNotReturnBeforeTheReleaseAnswered() throws Exception {
        InMemoryLockServer server = new InMemoryLockServer();
        LockProvider delegate = closing(InMemoryLockProvider.builder().server(server).build());
        LockProvider probe = closing(InMemoryLockProvider.builder().server(server).build());
        CountDownLatch releaseEntered = new CountDownLatch(1);
        CountDownLatch releaseMayAnswer = new CountDownLatch(1);
        AtomicBoolean released = new AtomicBoolean();
        LockProvider slowRelease = new Delegating(delegate) {
            @Override
            Lease wrap(Lease lease) {
                return new DelegatingLease(lease) {
                    @Override
                    public void release() {
                        releaseEntered.countDown();
                        try {
                            releaseMayAnswer.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        super.release();
                        released.set(true);
                    }
                };
            }
        };
        Leadership leader = Leadership.builder(slowRelease, "two-stops").ttl(Duration.ofSeconds(30)).start();
        await().atMost(FIVE_S).until(leader::isLeader);
        Thread first = new Thread(leader::stop, "first-stop");
        first.start();
        try {
            assertThat(releaseEntered.await(30, TimeUnit.SECONDS)).isTrue();
            AtomicBoolean secondReturned = new AtomicBoolean();
            AtomicBoolean releasedWhenSecondStopReturned = new AtomicBoolean();
            Thread second = new Thread(() -> {
                leader.stop();
                releasedWhenSecondStopReturned.set(released.get());
                secondReturned.set(true);
            }, "second-stop");
            second.start();
            // a second stop that does not wait for the release returns while it is held; one that waits stays parked
            await().atMost(Duration.ofSeconds(30)).during(Duration.ofMillis(200))
                    .until(() -> secondReturned.get() || second.getState() == Thread.State.WAITING
                            || second.getState() == Thread.State.TIMED_WAITING);
            releaseMayAnswer.countDown();
            second.join(30_000);
            assertThat(secondReturned).as("the second stop() returned once the release answered").isTrue();
            Optional<Lease> next = probe.tryAcquire("two-stops", LeaseOptions.ofTtl(Duration.ofSeconds(30)));
            next.ifPresent(Lease::close);
            assertThat(releasedWhenSecondStopReturned)
                    .as("the release had answered when a concurrent second stop() returned")
                    .isTrue();
            assertThat(next).as("the lock is free once stop() returned").isPresent();
        } finally {
            releaseMayAnswer.countDown();
            first.join(30_000);
        }
    }

    /**
     * Coverage (passes): stop() races a grant on its way. Leader A releases (waking B's pending
     * acquireAsync) at the same moment B.stop() runs, 100 times. Whichever wins — B's future
     * cancelled before the grant (the provider gives the unclaimed lease back), the grant
     * completing before stop took the lock (stop ends the term), or the grant arriving after stop
     * (released on a worker) — no lease may be left held (the TTL is 30 s, so only a give-back
     * frees it within 2 s), every onElected must be followed by exactly one onRevoked, and
     * nothing may be elected after stop() returned.
     */
    @Test
    void stopRacingAGrantOnItsWayLeavesNoLeaseBehindAndNoTermAfterStop() throws Exception {
        for (int round = 0; round < 100; round++) {
            InMemoryLockServer server = new InMemoryLockServer();
            try (LockProvider pA = InMemoryLockProvider.builder().server(server).build();
                    LockProvider pB = InMemoryLockProvider.builder().server(server).build();
                    LockProvider probe = InMemoryLockProvider.builder().server(server).build()) {
                Leadership a = Leadership.builder(pA, "race").ttl(Duration.ofSeconds(30)).start();
                await().atMost(FIVE_S).pollInterval(Duration.ofMillis(2)).until(a::isLeader);
                List<String> heardByB = new CopyOnWriteArrayList<>();
                AtomicReference<java.time.Instant> bStopped = new AtomicReference<>();
                Leadership b = Leadership.builder(pB, "race").ttl(Duration.ofSeconds(30))
                        .listener(new LeadershipListener() {
                            @Override
                            public void onElected(Term term) {
                                // delivery is asynchronous and may follow stop(); the election itself may not
                                java.time.Instant stoppedAt = bStopped.get();
                                heardByB.add(stoppedAt != null && term.electedAt().isAfter(stoppedAt)
                                        ? "elected after stop" : "elected");
                            }

                            @Override
                            public void onRevoked(Term term, RevocationReason reason) {
                                heardByB.add("revoked " + reason);
                            }
                        }).start();
                CyclicBarrier gate = new CyclicBarrier(2);
                Thread stopper = new Thread(() -> {
                    try {
                        gate.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    b.stop();
                    bStopped.set(java.time.Instant.now());
                });
                stopper.start();
                gate.await();
                a.stop();
                stopper.join(10_000);
                assertThat(b.isLeader()).isFalse();
                int r = round;
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5)).untilAsserted(() -> {
                    Optional<Lease> free = probe.tryAcquire("race", LeaseOptions.ofTtl(Duration.ofSeconds(30)));
                    free.ifPresent(Lease::close);
                    assertThat(free).as("round %d: the lock is free after both stopped", r).isPresent();
                });
                await().atMost(FIVE_S).untilAsserted(() -> assertThat(heardByB)
                        .as("round %d: B's events", r)
                        .isIn(List.of(), List.of("elected", "revoked STOPPED")));
            }
        }
    }

    /**
     * Coverage (passes): the campaign's acquire ends in an unclear reply — the server granted the
     * lock (token 1) but the answer was lost. Nobody holds a lease for that grant; if it were not
     * given back, this very candidate could not win for a whole TTL (30 s). It must win within a
     * few seconds of the server answering again, with an epoch greater than the lost grant's.
     */
    @Test
    void aCampaignWhoseGrantReplyWasLostLeavesNoLockBehind() {
        InMemoryLockServer server = new InMemoryLockServer();
        CountDownLatch unclear = new CountDownLatch(1);
        LockProvider provider = closing(InMemoryLockProvider.builder().server(server).listener(new FencingListener() {
                    @Override
                    public void onAcquireFinished(String resource, AcquireOutcome outcome, Duration waited) {
                        if (outcome == AcquireOutcome.UNAVAILABLE) {
                            unclear.countDown();
                        }
                    }
                }).build());
        server.loseAcquireReplies();
        Leadership leadership = closing(Leadership.builder(provider, "unclear").ttl(Duration.ofSeconds(30))
                .reelectionBackoff(Backoff.fixed(Duration.ofMillis(50))).start());
        await().atMost(FIVE_S).until(() -> unclear.getCount() == 0);
        assertThat(leadership.isLeader()).isFalse();
        server.answerAgain();
        await().atMost(FIVE_S).until(leadership::isLeader);
        assertThat(leadership.currentEpoch().orElseThrow().value()).isGreaterThan(1L);
    }

    /** A provider passing every call to another, wrapping its leases. */
    private static class Delegating implements LockProvider {
        private final LockProvider delegate;

        Delegating(LockProvider delegate) {
            this.delegate = delegate;
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
            CompletableFuture<Lease> inner = delegate.acquireAsync(resource, options);
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
        public FencingToken token() {
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
        public FencingToken requireValidFor(Duration margin) {
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
