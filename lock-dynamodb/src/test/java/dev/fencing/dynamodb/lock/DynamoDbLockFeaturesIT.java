package dev.fencing.dynamodb.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.TestServers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What users of amazon-dynamodb-lock-client rely on beside the lock itself, on dynalite, each with
 * two providers (two clients) on one table: owner names, listing, close releasing, only existing
 * locks, data with the lock, a table shared through a sort key, and pruning idle items.
 */
class DynamoDbLockFeaturesIT {

    private static final String TABLE = "fencing_locks_features";

    private final DynamoDbClient raw = newClient();
    private final DynamoDbLockProvider first = builder().ownerName("worker-a").build();
    private final DynamoDbLockProvider second = builder().ownerName("worker-b").build();

    private static DynamoDbClient newClient() {
        return LockTables.client(TABLE);
    }

    private static DynamoDbLockProvider.Builder builder() {
        return DynamoDbLockProvider.builder(newClient()).table(TABLE);
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
        raw.close();
    }

    private static String resource(String name) {
        return "feat-" + name + "-" + UUID.randomUUID();
    }

    private static LeaseOptions ttl10s() {
        return LeaseOptions.ofTtl(Duration.ofSeconds(10));
    }

    private Map<String, AttributeValue> item(String table, Map<String, AttributeValue> key) {
        return raw.getItem(r -> r.tableName(table).key(key).consistentRead(true)).item();
    }

    @Test
    void everyItemNamesItsHolderAndTheDefaultNameIsHostAndProcess() {
        String resource = resource("owner-name");
        try (Lease lease = first.tryAcquire(resource, ttl10s()).orElseThrow()) {
            assertThat(item(TABLE, Map.of("resource", AttributeValue.fromS(resource))).get("owner_name").s())
                    .isEqualTo("worker-a");
            assertThat(lease.ownerId()).isNotEqualTo("worker-a");
        }
        assertThat(DynamoDbLockProvider.Builder.defaultOwnerName()).endsWith("/" + ProcessHandle.current().pid());
        assertThatThrownBy(() -> builder().ownerName(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ownerName");
    }

    @Test
    void listingShowsTheLocksHeldWithTheirHoldersAndNotTheReleasedOnes() {
        String a = resource("list-a");
        String b = resource("list-b");
        String released = resource("list-released");
        first.tryAcquire(released, ttl10s()).orElseThrow().release();
        try (Lease leaseA = first.tryAcquire(a, ttl10s()).orElseThrow();
                Lease leaseB = second.tryAcquire(b, ttl10s()).orElseThrow()) {
            List<HeldLock> held = second.listHeldLocks().stream()
                    .filter(lock -> lock.resource().equals(a) || lock.resource().equals(b) || lock.resource().equals(released))
                    .toList();
            assertThat(held).extracting(HeldLock::resource, HeldLock::ownerName, HeldLock::ownerId, HeldLock::token)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(a, "worker-a", leaseA.ownerId(), leaseA.token().value()),
                            org.assertj.core.groups.Tuple.tuple(b, "worker-b", leaseB.ownerId(), leaseB.token().value()));
            assertThat(held).allSatisfy(lock -> assertThat(lock.remaining()).isPositive()
                    .isLessThanOrEqualTo(Duration.ofSeconds(10)));
        }
    }

    /** A graceful shutdown hands the locks on at once (the AWS client's close), instead of after their TTL. */
    @Test
    void closeReleasesWhatTheProviderHoldsAndTheListenerHearsIt() {
        String resource = resource("close");
        RecordingListener listener = new RecordingListener();
        DynamoDbLockProvider closing = builder().listener(listener).build();
        Lease lease = closing.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofMinutes(5)).withAutoRenew(true))
                .orElseThrow();
        String released = resource("close-released");
        closing.tryAcquire(released, ttl10s()).orElseThrow().release();
        closing.close();

        assertThat(lease.isValid()).isFalse();
        assertThat(listener.released()).isEqualTo(2);
        Lease next = second.tryAcquire(resource, ttl10s()).orElseThrow();
        assertThat(next.token().value()).isGreaterThan(lease.token().value());
        next.release();

        String lapsing = resource("close-lapse");
        DynamoDbLockProvider keeping = builder().releaseOnClose(false).build();
        keeping.tryAcquire(lapsing, LeaseOptions.ofTtl(Duration.ofMinutes(5))).orElseThrow();
        keeping.close();
        assertThat(second.tryAcquire(lapsing, ttl10s())).as("a lock left to lapse").isEmpty();
    }

    @Test
    void onlyExistingLocksAreGrantedWhenAskedAndAnExistingOneIsGrantedAsUsual() throws Exception {
        String resource = resource("existing");
        try (DynamoDbLockProvider existingOnly = builder().onlyExistingLocks(true).build()) {
            assertThat(existingOnly.tryAcquire(resource, ttl10s())).isEmpty();
            assertThat(raw.getItem(r -> r.tableName(TABLE).consistentRead(true)
                    .key(Map.of("resource", AttributeValue.fromS(resource)))).hasItem()).as("an item created").isFalse();
            assertThatThrownBy(() -> existingOnly.acquire(resource, ttl10s().withWaitTimeout(Duration.ofMillis(300))))
                    .isInstanceOf(LockUnavailableException.class);

            long earlier;
            try (Lease lease = first.tryAcquire(resource, ttl10s()).orElseThrow()) {
                earlier = lease.token().value();
            }
            try (Lease lease = existingOnly.tryAcquire(resource, ttl10s()).orElseThrow()) {
                assertThat(lease.token().value()).isGreaterThan(earlier);
                assertThat(existingOnly.tryAcquire(resource, ttl10s())).as("held").isEmpty();
            }
        }
    }

    /** A worker leaves a checkpoint with the lock; the next holder reads it; a renewal replaces it. */
    @Test
    void dataSetAtTheGrantIsReplacedByRenewalAndReleaseAndReadByTheNextHolder() throws Exception {
        String resource = resource("data");
        DynamoDbLease lease = first.acquire(resource, ttl10s(), bytes("started"));
        assertThat(lease.data()).hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("started"));
        lease.renew(Duration.ofSeconds(10), bytes("half way"));
        assertThat(lease.data()).hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("half way"));
        lease.release(bytes("checkpoint 7"));

        assertThat(second.readData(resource)).as("read without acquiring")
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("checkpoint 7"));
        assertThat(second.findHeldLock(resource)).isEmpty();
        DynamoDbLease next = (DynamoDbLease) second.tryAcquire(resource, ttl10s()).orElseThrow();
        assertThat(first.findHeldLock(resource)).hasValueSatisfying(held -> {
            assertThat(held.ownerName()).isEqualTo("worker-b");
            assertThat(held.token()).isEqualTo(next.token().value());
        });
        assertThat(next.data()).as("left by the previous holder")
                .hasValueSatisfying(data -> assertThat(text(data)).isEqualTo("checkpoint 7"));
        DynamoDbLease stale = lease;
        assertThatThrownBy(stale::data).isInstanceOf(LeaseLostException.class);
        next.release();

        assertThatThrownBy(() -> first.tryAcquire(resource, ttl10s(), new byte[DynamoDbLease.MAX_DATA_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("65537 bytes");
        DynamoDbLease empty = first.tryAcquire(resource, ttl10s(), new byte[0]).orElseThrow();
        assertThat(empty.data()).hasValueSatisfying(data -> assertThat(data).isEmpty());
        empty.release();
    }

    @Test
    void aLostLeaseDoesNotReadTheNextHoldersData() throws Exception {
        String resource = resource("data-lost");
        try (DynamoDbLockProvider fast = builder().expiry(DynamoDbLockProvider.Expiry.SYNCHRONIZED_CLOCKS)
                        .wallClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10))).build()) {
            DynamoDbLease zombie = first.acquire(resource, ttl10s(), bytes("mine"));
            try (Lease next = fast.tryAcquire(resource, ttl10s(), bytes("theirs")).orElseThrow()) {
                assertThatThrownBy(zombie::data).isInstanceOf(LeaseLostException.class);
                assertThat(next.isValid()).isTrue();
            }
        }
    }

    /** One table shared with other items: the lock is the item (resource, "lock"), the others are left alone. */
    @Test
    void aTableSharedThroughASortKeyHoldsLocksBesideOtherItems() {
        String shared = "shared_" + UUID.randomUUID().toString().substring(0, 8);
        try (DynamoDbLockProvider a = DynamoDbLockProvider.builder(newClient()).table(shared).partitionKey("pk")
                        .sortKey("sk", "lock").ownerName("a").build();
                DynamoDbLockProvider b = DynamoDbLockProvider.builder(newClient()).table(shared).partitionKey("pk")
                        .sortKey("sk", "lock").build()) {
            a.createTable();
            raw.putItem(r -> r.tableName(shared).item(Map.of("pk", AttributeValue.fromS("order-7"),
                    "sk", AttributeValue.fromS("data"), "total", AttributeValue.fromN("42"))));
            Lease lease = a.tryAcquire("order-7", ttl10s()).orElseThrow();
            assertThat(b.tryAcquire("order-7", ttl10s())).isEmpty();
            assertThat(b.listHeldLocks()).extracting(HeldLock::resource, HeldLock::ownerName)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("order-7", "a"));
            lease.release();
            Lease next = b.tryAcquire("order-7", ttl10s()).orElseThrow();
            assertThat(next.token().value()).isGreaterThan(lease.token().value());
            next.release();
            assertThat(item(shared, Map.of("pk", AttributeValue.fromS("order-7"), "sk", AttributeValue.fromS("data"))))
                    .containsEntry("total", AttributeValue.fromN("42")).doesNotContainKey("owner");

            // the provider's default layout on this table is refused by name, not granted on the wrong item
            assertThatThrownBy(() -> DynamoDbLockProvider.createTable(raw, shared))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("pk (HASH)")
                    .hasMessageContaining("sk (RANGE)");
            try (DynamoDbLockProvider wrongKeys = DynamoDbLockProvider.builder(newClient()).table(shared).build()) {
                assertThatThrownBy(() -> wrongKeys.tryAcquire("order-7", ttl10s()))
                        .isInstanceOf(LockUnavailableException.class).hasMessageContaining("'resource'");
            }
        } finally {
            raw.deleteTable(r -> r.tableName(shared));
        }
        assertThatThrownBy(() -> builder().partitionKey("token")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'token'");
        assertThatThrownBy(() -> builder().sortKey("owner", "lock")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sortKey");
    }

    /**
     * Pruning deletes only free items whose token is older than the margin: a held item, a recent
     * one and one whose token ran ahead of the clock stay, and the next grant on a pruned name still
     * gets a larger token than the deleted one — also after a restore brought an old token back.
     */
    @Test
    void pruningDeletesOnlyIdleFreeItemsAndTheNextTokenIsStillLarger() throws Exception {
        long hourAgo = (System.currentTimeMillis() - Duration.ofHours(1).toMillis()) * 1000;
        String idle = resource("prune-idle");
        String restored = resource("prune-restored");
        String heldIdle = resource("prune-held");
        String recent = resource("prune-recent");
        String ahead = resource("prune-ahead");
        put(idle, Map.of("token", number(hourAgo), "released_token", number(hourAgo)));
        put(restored, Map.of("token", number(hourAgo / 2)));
        put(heldIdle, Map.of("token", number(hourAgo), "owner", AttributeValue.fromS("someone"),
                "expires_ms", number(System.currentTimeMillis() + 60_000)));
        first.tryAcquire(recent, ttl10s()).orElseThrow().release();
        long future = (System.currentTimeMillis() + Duration.ofDays(1).toMillis()) * 1000;
        put(ahead, Map.of("token", number(future)));

        int deleted = second.prune(Duration.ofMinutes(30));

        assertThat(deleted).isGreaterThanOrEqualTo(2);
        assertThat(exists(idle)).isFalse();
        assertThat(exists(restored)).isFalse();
        assertThat(exists(heldIdle)).isTrue();
        assertThat(exists(recent)).isTrue();
        assertThat(exists(ahead)).isTrue();
        try (Lease next = first.tryAcquire(idle, ttl10s()).orElseThrow()) {
            assertThat(next.token().value()).isGreaterThan(hourAgo);
        }
        try (Lease next = first.tryAcquire(ahead, ttl10s()).orElseThrow()) {
            assertThat(next.token().value()).isGreaterThan(future);
        }

        // a grant between the scan and the delete keeps its item: the delete names the token it read
        String raced = resource("prune-raced");
        put(raced, Map.of("token", number(hourAgo)));
        first.tryAcquire(raced, ttl10s()).orElseThrow().release();
        long floor = System.currentTimeMillis() * 1000;
        assertThat(second.deleteIdle(raced, hourAgo, floor)).isFalse();
        assertThat(exists(raced)).isTrue();

        assertThatThrownBy(() -> second.prune(Duration.ofSeconds(59))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("idleFor");
    }

    /**
     * The early warning (the AWS client's session monitor) with a real server gone silent: the
     * watchdog's renewals get no answer, the listener hears it once the lease has the margin or less
     * left, and only then the loss.
     */
    @Test
    void silentRenewalsWarnWithinTheMarginBeforeTheLeaseIsLost() {
        String resource = resource("warning");
        RecordingListener listener = new RecordingListener();
        java.util.List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.fencing.core.FencingListener both = dev.fencing.core.FencingListener.composite(listener,
                new dev.fencing.core.FencingListener() {
                    @Override
                    public void onRenewalsFailing(Lease lease, Duration remaining, Throwable lastFailure) {
                        order.add("warned");
                    }

                    @Override
                    public void onLost(Lease lease, String reason, Throwable cause) {
                        order.add("lost");
                    }
                });
        Duration margin = Duration.ofMillis(1500);
        try (dev.fencing.testkit.servers.LaggingProxy proxy = dev.fencing.testkit.servers.LaggingProxy.start("127.0.0.1",
                        java.net.URI.create(TestServers.dynamoDb().endpoint()).getPort());
                DynamoDbClient client = DynamoDbLockProviderIT.client("http://127.0.0.1:" + proxy.port());
                DynamoDbLockProvider watched = DynamoDbLockProvider.builder(client).table(TABLE).listener(both)
                        .requestTimeout(Duration.ofMillis(800)).expiryWarning(margin).releaseOnClose(false).build()) {
            Lease lease = watched.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(3)).withAutoRenew(true))
                    .orElseThrow();
            proxy.holdReplies();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> order.contains("lost"));
            assertThat(order).containsExactly("warned", "lost");
            assertThat(listener.renewalWarnings()).singleElement()
                    .satisfies(left -> assertThat(left).isPositive().isLessThanOrEqualTo(margin));
            assertThat(lease.isValid()).isFalse();
            proxy.passReplies();
        }
    }

    /** A silent server holds close() about one request timeout, not one per lease it would release. */
    @Test
    void closeOnASilentServerTakesAboutOneRequestTimeoutWhateverItHolds() {
        try (dev.fencing.testkit.servers.LaggingProxy proxy = dev.fencing.testkit.servers.LaggingProxy.start("127.0.0.1",
                        java.net.URI.create(TestServers.dynamoDb().endpoint()).getPort());
                DynamoDbClient client = DynamoDbLockProviderIT.client("http://127.0.0.1:" + proxy.port())) {
            DynamoDbLockProvider closing = DynamoDbLockProvider.builder(client).table(TABLE)
                    .requestTimeout(Duration.ofMillis(500)).build();
            for (int i = 0; i < 12; i++) {
                closing.tryAcquire(resource("silent-close-" + i), LeaseOptions.ofTtl(Duration.ofMinutes(1))).orElseThrow();
            }
            proxy.holdReplies();
            long started = System.nanoTime();
            closing.close();
            // one release (500 ms) against 12 x 500 ms when each waits its own timeout; generous for a busy machine
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));
            proxy.passReplies();
        }
    }

    /** A lock item as a grant leaves it (with a version; items without one are not locks), released or held. */
    private void put(String resource, Map<String, AttributeValue> attributes) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(attributes);
        item.put("resource", AttributeValue.fromS(resource));
        item.putIfAbsent("version", AttributeValue.fromS("hand-written:0"));
        raw.putItem(r -> r.tableName(TABLE).item(item));
    }

    private boolean exists(String resource) {
        return raw.getItem(r -> r.tableName(TABLE).consistentRead(true)
                .key(Map.of("resource", AttributeValue.fromS(resource)))).hasItem();
    }

    private static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] data) {
        return new String(data, StandardCharsets.UTF_8);
    }
}
