package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Every kind of round trip a {@link LockProvider} makes, each once: a grant and its token, a
 * refusal, a renewal, a release, the release notice that wakes a waiter, expiry and the larger
 * token after it, the refused renewal and release of a lease taken over, a burst of concurrent
 * clients, and a server that stopped answering.
 *
 * <p>{@link LockProviderContract} extends it with everything else a provider must do. Run this one
 * alone for a second way of reaching a server whose full contract already runs in plain text: over
 * TLS, with an account of least privilege, through a proxy. What the full contract adds does not
 * depend on the transport; what the transport can break — a handshake, a certificate, a command or
 * key the account may not use, a second connection for notices — shows up in these round trips.
 *
 * <p>Each test uses fresh resource names, so a shared server needs no cleaning.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class LockProviderTransportContract {

    /** Events of the {@link #provider} under test. */
    protected final RecordingListener events = new RecordingListener();
    /** The provider under test, built by {@link #createProvider} before each test. */
    protected LockProvider provider;

    private final List<LockProvider> providers = new ArrayList<>();
    private String prefix;

    /**
     * A new provider against the real server, reporting to {@code listener}. Called once before
     * each test, and again where a test needs a second, independent client ("another process").
     */
    protected abstract LockProvider createProvider(FencingListener listener);

    /**
     * A provider, built while its server answered, whose server then stopped answering (a closed
     * proxy in front of it, a disconnected in-memory server). Every subclass provides one: the
     * contract checks that such a provider's {@code tryAcquire} throws
     * {@link LockUnavailableException} rather than answering "held" or hanging.
     */
    protected abstract LockProvider createUnreachableProvider();

    /** A TTL short enough to wait out in a test and long enough for a slow CI machine's round trips. */
    protected Duration shortTtl() {
        return Duration.ofMillis(600);
    }

    /**
     * The least time a lease renewed to 30 s has left right after the renewal: 20 s by default (the
     * renewal's round trip aside). A provider that bounds validity below the TTL overrides it: a
     * ZooKeeper lease counts as valid only as long as the ensemble surely keeps its session.
     */
    protected Duration leftAfterARenewalTo30Seconds() {
        return Duration.ofSeconds(20);
    }

    @BeforeEach
    void createProviderUnderTest(TestInfo info) {
        prefix = "contract-" + info.getTestMethod().map(m -> m.getName()).orElse("test") + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL);
        provider = track(createProvider(events));
    }

    @AfterEach
    void closeProviders() {
        providers.forEach(LockProvider::close); // idempotent: also those a test closed itself
    }

    /** A second, independent client of the same server. */
    protected LockProvider anotherProvider() {
        return track(createProvider(FencingListener.NONE));
    }

    /** A resource name unique to this test. */
    protected String resource(String name) {
        return prefix + "-" + name;
    }

    LockProvider track(LockProvider created) {
        providers.add(created);
        return created;
    }

    LeaseOptions ttl(Duration ttl) {
        return LeaseOptions.ofTtl(ttl);
    }

    LeaseOptions longLease() {
        return LeaseOptions.ofTtl(Duration.ofSeconds(60));
    }

    @Test
    void grantsALeaseWithATokenAndAnOwnerIdAndReleasesIt() {
        String resource = resource("r");
        Lease lease = provider.tryAcquire(resource, longLease()).orElseThrow();

        assertThat(lease.resource()).isEqualTo(resource);
        assertThat(lease.token().resource()).isEqualTo(resource);
        assertThat(lease.token().value()).isPositive();
        assertThat(lease.ownerId()).matches("[0-9a-f]{32}");
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(60));
        assertThat(events.granted()).isEqualTo(1);

        lease.release();
        assertThat(lease.isValid()).isFalse();
        assertThat(events.released()).isEqualTo(1);
        try (Lease next = provider.tryAcquire(resource, longLease()).orElseThrow()) {
            assertThat(next.token().value()).isGreaterThan(lease.token().value());
        }
    }

    @Test
    void aHeldLockIsRefusedToEveryOtherOwner() {
        String resource = resource("r");
        try (Lease held = provider.tryAcquire(resource, longLease()).orElseThrow()) {
            assertThat(provider.tryAcquire(resource, longLease())).isEmpty();
            assertThat(anotherProvider().tryAcquire(resource, longLease())).isEmpty();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void mutualExclusionHoldsUnderConcurrency() throws Exception {
        String resource = resource("r");
        int threads = 8;
        int rounds = 15;
        LockProvider[] clients = {provider, anotherProvider()};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        int[] counter = {0};
        List<Long> tokensInGrantOrder = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockProvider client = clients[t % clients.length];
                done.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = client.acquire(resource, LeaseOptions.builder()
                                .ttl(Duration.ofSeconds(30)).waitTimeout(Duration.ofSeconds(60)).build())) {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            int read = counter[0];
                            Thread.yield();
                            counter[0] = read + 1; // lost updates here would mean two holders at once
                            tokensInGrantOrder.add(lease.token().value());
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get(100, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(maxInside.get()).as("holders inside the critical section at once").isEqualTo(1);
        assertThat(counter[0]).isEqualTo(threads * rounds);
        assertThat(tokensInGrantOrder).as("tokens in grant order").isSorted().doesNotHaveDuplicates();
    }

    @Test
    void expiryFreesTheLockAndTheNextGrantHasALargerToken() {
        String resource = resource("r");
        Lease expired = provider.tryAcquire(resource, ttl(shortTtl())).orElseThrow();
        LockProvider other = anotherProvider();

        Lease next = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> other.tryAcquire(resource, longLease()), Optional::isPresent).orElseThrow();

        assertThat(next.token().isNewerThan(expired.token())).isTrue();
        assertThat(expired.isValid()).isFalse();
        next.release();
        assertThatThrownBy(expired::release).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void onlyTheOwnerCanRenewOrReleaseAnExpiredHoldersLockIsSafe() {
        String resource = resource("r");
        Lease zombie = provider.tryAcquire(resource, ttl(shortTtl())).orElseThrow();
        LockProvider other = anotherProvider();
        Lease current = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                .until(() -> other.tryAcquire(resource, longLease()), Optional::isPresent).orElseThrow();

        assertThatThrownBy(() -> zombie.renew(Duration.ofSeconds(60)))
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining(resource);
        assertThatThrownBy(zombie::release).isInstanceOf(LeaseLostException.class);

        assertThat(provider.tryAcquire(resource, longLease())).as("the new holder still holds the lock").isEmpty();
        assertThat(current.isValid()).isTrue();
        current.renew(Duration.ofSeconds(60));
        current.release();
        assertThat(events.lost()).isEqualTo(1);
    }

    @Test
    void renewExtendsTheLease() {
        String resource = resource("r");
        try (Lease lease = provider.tryAcquire(resource, ttl(shortTtl())).orElseThrow()) {
            lease.renew(Duration.ofSeconds(30));
            assertThat(lease.remaining()).isGreaterThan(leftAfterARenewalTo30Seconds());
            LockProvider other = anotherProvider();
            Holds.throughout("the lock refused to another owner", shortTtl().multipliedBy(2),
                    () -> other.tryAcquire(resource, longLease()).isEmpty());
            assertThat(lease.isValid()).isTrue();
            assertThat(events.renewed()).isEqualTo(1);
        }
    }

    @Test
    void acquireWaitsForTheHolderToRelease() throws Exception {
        String resource = resource("r");
        Lease held = provider.tryAcquire(resource, longLease()).orElseThrow();
        LeaseOptions waiting = LeaseOptions.ofTtl(Duration.ofSeconds(30)).withWaitTimeout(Duration.ofSeconds(30));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiter = pool.submit(() -> anotherProvider().acquire(resource, waiting));
            Holds.throughout("the acquire waiting", Duration.ofMillis(200), () -> !waiter.isDone());
            held.release();
            try (Lease next = waiter.get(30, TimeUnit.SECONDS)) {
                assertThat(next.token().isNewerThan(held.token())).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anUnreachableServerMakesTryAcquireThrowLockUnavailable() {
        LockProvider cutOff = track(createUnreachableProvider());
        java.util.concurrent.atomic.AtomicReference<Optional<Lease>> returned = new java.util.concurrent.atomic.AtomicReference<>();
        boolean interruptedBefore = Thread.currentThread().isInterrupted();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(
                () -> returned.set(cutOff.tryAcquire(resource("r"), longLease())));
        assertThat(thrown).as("what tryAcquire of an unreachable server threw; it returned %s (the test thread was%s"
                + " interrupted before)", returned.get(), interruptedBefore ? "" : " not")
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining(resource("r"));
    }
}
