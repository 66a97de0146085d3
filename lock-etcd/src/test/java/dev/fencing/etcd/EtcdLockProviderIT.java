package dev.fencing.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Backoff;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.Holds;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.EtcdTestServer;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.watch.WatchEvent;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The contract against a real etcd (one member), plus what is particular to etcd. */
class EtcdLockProviderIT extends LockProviderContract {

    private static final EtcdTestServer etcd = TestServers.etcd();
    /** A wait whose 30 s backoff is longer than any test: only a watch can wake it in time. */
    private static final LeaseOptions WAITING_ON_NOTICES_ONLY = LeaseOptions.ofTtl(Duration.ofSeconds(30))
            .withWaitTimeout(Duration.ofSeconds(60)).withBackoff(Backoff.fixed(Duration.ofSeconds(30)));
    private static Client raw;

    @BeforeAll
    static void rawClient() {
        raw = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).build();
    }

    @AfterAll
    static void closeRawClient() {
        raw.close();
    }

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return EtcdLockProvider.builder(etcd.endpoints().toArray(String[]::new)).listener(listener)
                .requestTimeout(Duration.ofSeconds(3)).build();
    }

    /**
     * A provider with a short request timeout, built again while its first answer takes longer than
     * that (a new client on a loaded machine): the short bound is for what the test does next.
     */
    private static EtcdLockProvider built(java.util.function.Supplier<EtcdLockProvider> build) {
        return org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(dev.fencing.core.LockUnavailableException.class)
                .until(build::get, provider -> true);
    }

    /** Built through a proxy that is then closed: etcd is up, this client cannot reach it. */
    @Override
    protected LockProvider createUnreachableProvider() {
        LaggingProxy proxy = LaggingProxy.start("127.0.0.1", etcd.port());
        LockProvider cutOff = built(() -> EtcdLockProvider.builder("http://127.0.0.1:" + proxy.port())
                .requestTimeout(Duration.ofSeconds(1)).build());
        proxy.close();
        return cutOff;
    }

    /** The acquire transaction's reply is never delivered; its request reaches etcd and is applied. */
    @Override
    protected Optional<UnclearReplies> unclearReplies() {
        HoldTxnReplies hold = new HoldTxnReplies();
        Client client = Client.builder().endpoints(etcd.endpoints().toArray(String[]::new)).interceptor(hold).build();
        EtcdLockProvider held = built(() -> EtcdLockProvider.builder(client).requestTimeout(Duration.ofMillis(500))
                .build());
        return Optional.of(new UnclearReplies() {
            @Override
            public LockProvider provider() {
                return held;
            }

            @Override
            public void holdReplies() {
                hold.hold();
            }

            @Override
            public void passReplies() {
                hold.pass();
            }

            @Override
            public void close() {
                held.close();
                client.close();
            }
        });
    }

    private EtcdLockProvider etcdProvider() {
        return (EtcdLockProvider) provider;
    }

    private static Optional<KeyValue> read(String key) throws Exception {
        List<KeyValue> kvs = raw.getKVClient().get(ByteSequence.from(key, StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS).getKvs();
        return kvs.stream().findFirst();
    }

    @Test
    void theTokenIsTheLockKeysCreateRevisionAndTheValueTheOwnerId() throws Exception {
        String resource = resource("r");
        String key = etcdProvider().lockKey(resource);
        assertThat(key).isEqualTo("fencing/" + resource + "/lock");
        long previous;
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            KeyValue stored = read(key).orElseThrow();
            assertThat(lease.token().value()).isEqualTo(stored.getCreateRevision());
            assertThat(stored.getValue().toString(StandardCharsets.UTF_8)).isEqualTo(lease.ownerId());
            assertThat(stored.getLease()).as("the key lives on a lease").isNotZero();
            LockState state = provider.inspect(resource).orElseThrow();
            assertThat(state.holder()).contains(lease.ownerId());
            assertThat(state.lastToken()).hasValue(lease.token().value());
            assertThat(state.remaining()).isPositive();
            previous = lease.token().value();
        }
        assertThat(read(key)).as("released: the key is gone").isEmpty();
        raw.getKVClient().put(ByteSequence.from(resource("unrelated"), StandardCharsets.UTF_8),
                ByteSequence.from("x", StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
        try (Lease next = anotherProvider().tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            KeyValue stored = read(key).orElseThrow();
            assertThat(next.token().value()).isEqualTo(stored.getCreateRevision())
                    .as("a write elsewhere in between moves the revision on: tokens are global").isGreaterThan(previous + 1);
        }
    }

    /**
     * A released lease serves the next grant of the same TTL (one etcd write per acquire), and
     * the new holder's validity counts from when that etcd lease's TTL was last set — the first
     * holder's grant — so it still ends before etcd can expire the key.
     */
    @Test
    void aReleasedLeaseServesTheNextGrantWhoseValidityCountsFromTheEtcdLeasesGrant() throws Exception {
        LeaseOptions options = LeaseOptions.ofTtl(Duration.ofSeconds(4));
        long firstGranted;
        long firstLease;
        try (Lease first = provider.tryAcquire(resource("first"), options).orElseThrow()) {
            firstGranted = System.nanoTime(); // the etcd lease's TTL was set before this
            KeyValue stored = read(etcdProvider().lockKey(resource("first"))).orElseThrow();
            assertThat(stored.getCreateRevision()).isEqualTo(first.token().value());
            firstLease = stored.getLease();
        }
        try (Lease second = provider.tryAcquire(resource("second"), options).orElseThrow()) {
            KeyValue stored = read(etcdProvider().lockKey(resource("second"))).orElseThrow();
            assertThat(stored.getLease()).as("the released lease, reused").isEqualTo(firstLease);
            long sampled = System.nanoTime();
            assertThat(second.remaining()).as("counted from the first grant, not from the second acquire")
                    .isLessThanOrEqualTo(Duration.ofSeconds(4).minusNanos(sampled - firstGranted));
            long serverTtlSeconds = raw.getLeaseClient().timeToLive(stored.getLease(),
                    io.etcd.jetcd.options.LeaseOption.DEFAULT).get(5, TimeUnit.SECONDS).getTTL();
            assertThat(Duration.ofSeconds(serverTtlSeconds + 1)).as("etcd keeps the key at least as long")
                    .isGreaterThanOrEqualTo(second.remaining());
        }
    }

    @Test
    void aRenewalToALongerTtlMovesTheKeyToANewLeaseAndKeepsTheToken() throws Exception {
        String resource = resource("r");
        String key = etcdProvider().lockKey(resource);
        try (Lease lease = provider.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow()) {
            long leaseBefore = read(key).orElseThrow().getLease();
            lease.renew(Duration.ofSeconds(40));
            KeyValue after = read(key).orElseThrow();
            assertThat(after.getCreateRevision()).isEqualTo(lease.token().value());
            assertThat(after.getLease()).isNotEqualTo(leaseBefore);
            long ttl = raw.getLeaseClient().timeToLive(after.getLease(), io.etcd.jetcd.options.LeaseOption.DEFAULT)
                    .get(10, TimeUnit.SECONDS).getGrantedTTL();
            assertThat(ttl).isGreaterThanOrEqualTo(40);
            assertThat(raw.getLeaseClient().timeToLive(leaseBefore, io.etcd.jetcd.options.LeaseOption.DEFAULT)
                    .get(10, TimeUnit.SECONDS).getTTL()).as("the old lease is revoked").isLessThanOrEqualTo(0);
        }
    }

    /**
     * The transaction is applied and its reply lost: the key exists for a moment under a lease
     * nobody holds, and the revoke deletes it long before its 60 s TTL. Without the revoke the
     * DELETE would come only after the TTL.
     */
    @Test
    void anAcquireWhoseReplyIsLostIsGivenBackByRevokingItsLease() throws Exception {
        String resource = resource("unclear");
        String key = etcdProvider().lockKey(resource);
        List<WatchEvent.EventType> events = new CopyOnWriteArrayList<>();
        io.etcd.jetcd.Watch.Watcher watcher = raw.getWatchClient().watch(ByteSequence.from(key, StandardCharsets.UTF_8),
                response -> response.getEvents().forEach(e -> events.add(e.getEventType())));
        try (UnclearReplies fault = unclearReplies().orElseThrow()) {
            fault.provider().tryAcquire(resource("warm-up"), LeaseOptions.ofDefaults()).orElseThrow().release();
            fault.holdReplies();
            assertThatThrownBy(() -> fault.provider().tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(60))))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("acquire transaction");
            await("the applied put, then the revoke's delete").atMost(Duration.ofSeconds(10))
                    .until(() -> events.equals(List.of(WatchEvent.EventType.PUT, WatchEvent.EventType.DELETE)));
            fault.passReplies();
        } finally {
            watcher.close();
        }
        try (Lease free = anotherProvider().tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow()) {
            assertThat(free.isValid()).isTrue();
        }
    }

    @Test
    void aKeyDeletedBehindTheHoldersBackIsReportedLostByTheNextRenewal() throws Exception {
        String resource = resource("r");
        Lease lease = provider.tryAcquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(3)).autoRenew(true)
                .build()).orElseThrow();
        raw.getKVClient().delete(ByteSequence.from(etcdProvider().lockKey(resource), StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> events.lost() == 1);
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(dev.fencing.core.LeaseLostException.class);
    }

    /** A backoff of 30 s: only the watch on the lock key can wake the waiter in time. */
    @Test
    void aWaiterIsWokenByTheWatchOnTheLockKeyNotByItsBackoff() throws Exception {
        String resource = resource("r");
        Lease held = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
        EtcdLockProvider other = (EtcdLockProvider) anotherProvider();
        LeaseOptions waiting = WAITING_ON_NOTICES_ONLY;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiter = pool.submit(() -> other.acquire(resource, waiting));
            await().atMost(Duration.ofSeconds(10)).until(() -> other.waitersFor(resource) == 1);
            long releasedAt = System.nanoTime();
            held.release();
            try (Lease next = waiter.get(15, TimeUnit.SECONDS)) {
                assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(10));
                assertThat(next.token().isNewerThan(held.token())).isTrue();
                assertThat(other.wakeUps()).isPositive();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Three processes wait in line (backoff 30 s): each release wakes only the head, the head
     * taking the lock wakes only the next, and they are served in the order they came. A herd —
     * every waiting process woken by each release — fails both checks.
     */
    @Test
    void eachReleaseWakesOnlyTheNextProcessInLineAndTheLineIsServedInOrder() throws Exception {
        String resource = resource("line");
        Lease held = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
        List<EtcdLockProvider> line = List.of((EtcdLockProvider) anotherProvider(),
                (EtcdLockProvider) anotherProvider(), (EtcdLockProvider) anotherProvider());
        LeaseOptions waiting = WAITING_ON_NOTICES_ONLY;
        ExecutorService pool = Executors.newFixedThreadPool(line.size());
        try {
            List<Future<Lease>> waiters = new java.util.ArrayList<>();
            for (EtcdLockProvider process : line) {
                waiters.add(pool.submit(() -> process.acquire(resource, waiting)));
                await().atMost(Duration.ofSeconds(10)).until(() -> process.waitersFor(resource) == 1);
                await().atMost(Duration.ofSeconds(10)).until(() -> ticketsInLine(resource) == waiters.size());
            }
            Lease previous = held;
            for (int turn = 0; turn < line.size(); turn++) {
                long[] wakeUpsBefore = line.stream().mapToLong(EtcdLockProvider::wakeUps).toArray();
                previous.release();
                Lease next = waiters.get(turn).get(15, TimeUnit.SECONDS);
                assertThat(next.token().isNewerThan(previous.token())).isTrue();
                // the one after the next may be woken (it becomes the head); everyone behind it sleeps on
                for (int behind = turn + 2; behind < line.size(); behind++) {
                    int later = behind;
                    Holds.throughout("the waiters behind asleep", Duration.ofMillis(500),
                            () -> line.get(later).wakeUps() == wakeUpsBefore[later] && !waiters.get(later).isDone());
                }
                previous = next;
            }
            previous.release();
            await().atMost(Duration.ofSeconds(10)).until(() -> ticketsInLine(resource) == 0);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A waiting process that froze (its ticket's lease no longer kept alive: here a ticket put by
     * hand on a 2 s lease) holds up the line only until its ticket expires, not for the backoff.
     */
    @Test
    void aFrozenProcessAheadInLineHoldsUpTheNextOnlyUntilItsTicketExpires() throws Exception {
        String resource = resource("frozen");
        EtcdLockProvider etcdProvider = (EtcdLockProvider) provider;
        Lease held = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
        long frozenLease = raw.getLeaseClient().grant(2).get(5, TimeUnit.SECONDS).getID();
        raw.getKVClient().put(bytes(etcdProvider.queuePrefix(resource) + "0123456789abcdef0123456789abcdef"),
                bytes(""), io.etcd.jetcd.options.PutOption.builder().withLeaseId(frozenLease).build())
                .get(5, TimeUnit.SECONDS);
        EtcdLockProvider other = (EtcdLockProvider) anotherProvider();
        LeaseOptions waiting = WAITING_ON_NOTICES_ONLY;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiter = pool.submit(() -> other.acquire(resource, waiting));
            await().atMost(Duration.ofSeconds(10)).until(() -> ticketsInLine(resource) == 2);
            held.release();
            try (Lease next = waiter.get(15, TimeUnit.SECONDS)) {
                assertThat(next.token().isNewerThan(held.token())).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A provider closed while one of its threads waits leaves the line at once, not after its ticket's 5 s TTL. */
    @Test
    void aProviderClosedWhileWaitingLeavesTheLineAtOnce() throws Exception {
        String resource = resource("closing");
        Lease held = provider.tryAcquire(resource, LeaseOptions.ofDefaults()).orElseThrow();
        EtcdLockProvider closing = EtcdLockProvider.builder(etcd.endpoints().toArray(String[]::new)).build();
        LeaseOptions waiting = WAITING_ON_NOTICES_ONLY;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            pool.submit(() -> closing.acquire(resource, waiting));
            await().atMost(Duration.ofSeconds(10)).until(() -> ticketsInLine(resource) == 1);
            long closedAt = System.nanoTime();
            closing.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> ticketsInLine(resource) == 0);
            assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(Duration.ofSeconds(3));
        } finally {
            pool.shutdownNow();
            held.release();
        }
    }

    private long ticketsInLine(String resource) throws Exception {
        return raw.getKVClient().get(bytes(((EtcdLockProvider) provider).queuePrefix(resource)),
                io.etcd.jetcd.options.GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(5, TimeUnit.SECONDS).getCount();
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost:2379", "ftp://127.0.0.1:2379", "http://127.0.0.1", "http://127.0.0.1:2379/v3",
            "http://user:secret@127.0.0.1:2379", " "})
    void badEndpointsAreRefusedNamingTheValue(String bad) {
        assertThatThrownBy(() -> EtcdLockProvider.builder(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("etcd endpoint");
        assertThatThrownBy(() -> EtcdLockProvider.builder(new String[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "/fencing", "fencing/", "a//b", "spaces here", "ünï"})
    void badKeyPrefixesAreRefusedNamingTheValue(String bad) {
        EtcdLockProvider.Builder builder = EtcdLockProvider.builder(etcd.endpoint());
        assertThatThrownBy(() -> builder.keyPrefix(bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix")
                .hasMessageContaining("'" + bad + "'");
        assertThatThrownBy(() -> builder.requestTimeout(Duration.ofMillis(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout");
    }

    @Test
    void aProviderWhoseEtcdDoesNotAnswerFailsToBuild() {
        int closedPort = dev.fencing.testkit.internal.Ports.free();
        assertThatThrownBy(() -> EtcdLockProvider.builder(URI.create("http://127.0.0.1:" + closedPort).toString())
                .requestTimeout(Duration.ofMillis(500)).build())
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + closedPort);
    }
}
