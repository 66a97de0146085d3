package dev.fencing.dynamodb.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;

/** Old, odd or extreme items left in the table, each met by two providers with clients of their own. */
class DynamoDbLockAdversaryIT {

    private static final String TABLE = "fencing_locks_adv";

    private final DynamoDbClient raw = newClient();
    private final DynamoDbLockProvider first = DynamoDbLockProvider.builder(newClient()).table(TABLE).build();
    private final DynamoDbLockProvider second = DynamoDbLockProvider.builder(newClient()).table(TABLE).build();

    private static DynamoDbClient newClient() {
        return LockTables.client(endpoint(), TABLE);
    }

    /**
     * The testkit's dynalite, or the endpoint in {@code ADV_DYNAMODB_ENDPOINT}: a server that
     * returns the old item with a failed condition (moto does; dynalite does not) takes the
     * provider's {@code ALL_OLD} path instead of its re-read.
     */
    private static String endpoint() {
        String other = System.getenv("ADV_DYNAMODB_ENDPOINT");
        return other != null ? other : TestServers.dynamoDb().endpoint();
    }

    @AfterEach
    void closeAll() {
        first.close();
        second.close();
        raw.close();
    }

    private static String resource(String name) {
        return "adv-" + name + "-" + UUID.randomUUID();
    }

    private void put(String resource, Map<String, AttributeValue> attributes) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(attributes);
        item.put(DynamoDbLockProvider.KEY, AttributeValue.fromS(resource));
        raw.putItem(r -> r.tableName(TABLE).item(item));
    }

    private static LeaseOptions ttl10s() {
        return LeaseOptions.ofTtl(Duration.ofSeconds(10));
    }

    /**
     * An item with an owner and no expiry (written by hand, by another tool, or an old schema):
     * inspect calls it free, but the grant's condition {@code #expires < :now} is false for a
     * missing attribute, so no client can ever take the lock, and the failure blames a race.
     */
    @Test
    void anOwnerWithoutExpiryDoesNotBlockTheLockForever() {
        String resource = resource("no-expiry");
        put(resource, Map.of(DynamoDbLockProvider.OWNER, AttributeValue.fromS("ghost"),
                DynamoDbLockProvider.TOKEN, AttributeValue.fromN("7")));
        LockState state = first.inspect(resource).orElseThrow();
        assertThat(state.isHeld()).isFalse();
        Optional<Lease> lease = second.tryAcquire(resource, ttl10s());
        assertThat(lease).isPresent();
        assertThat(lease.get().token().value()).isGreaterThan(7);
        lease.get().release();
    }

    /** A token stored as a string cannot be compared with a number: name it, do not blame a race. */
    @Test
    void aTokenThatIsNotANumberIsNamedNotBlamedOnARace() {
        String resource = resource("string-token");
        put(resource, Map.of(DynamoDbLockProvider.TOKEN, AttributeValue.fromS("123")));
        assertThatThrownBy(() -> first.tryAcquire(resource, ttl10s()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("token")
                .hasMessageNotContaining("another client is taking the lock");
        assertThatThrownBy(() -> second.inspect(resource))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("token");
    }

    /** A token past a long's range (another writer, a hand edit): a named failure, not a NumberFormatException. */
    @Test
    void aTokenBeyondALongIsANamedFailure() {
        String resource = resource("huge-token");
        put(resource, Map.of(DynamoDbLockProvider.TOKEN, AttributeValue.fromN("92233720368547758070")));
        assertThatThrownBy(() -> first.tryAcquire(resource, ttl10s()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("token");
        assertThatThrownBy(() -> second.inspect(resource))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("token");
    }

    /**
     * The last token a long can hold: {@code Math.max(candidate, token) + 1} overflows to
     * Long.MIN_VALUE and the attempt loops eight times, then blames another client's race.
     */
    @Test
    void theLastTokenIsANamedExhaustionNotARace() {
        String resource = resource("max-token");
        put(resource, Map.of(DynamoDbLockProvider.TOKEN, AttributeValue.fromN(Long.toString(Long.MAX_VALUE))));
        assertThatThrownBy(() -> first.tryAcquire(resource, ttl10s()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("exhausted")
                .hasMessageNotContaining("another client is taking the lock");
        assertThat(second.inspect(resource).orElseThrow().lastToken()).hasValue(Long.MAX_VALUE);
    }

    /** One below the last: granted with Long.MAX_VALUE itself, never anything smaller or repeated. */
    @Test
    void oneBelowTheLastTokenGrantsTheLastOne() {
        String resource = resource("max-1-token");
        put(resource, Map.of(DynamoDbLockProvider.TOKEN, AttributeValue.fromN(Long.toString(Long.MAX_VALUE - 1))));
        Lease lease = first.tryAcquire(resource, ttl10s()).orElseThrow();
        assertThat(lease.token().value()).isEqualTo(Long.MAX_VALUE);
        lease.release();
        assertThatThrownBy(() -> second.tryAcquire(resource, ttl10s())).isInstanceOf(LockUnavailableException.class);
    }

    /** A restored item with an owner and a future expiry is honoured as held, then taken with a larger token. */
    @Test
    void aRestoredHolderIsRespectedAndItsTokenOutrun() throws Exception {
        String resource = resource("restored-holder");
        long granted;
        try (Lease lease = first.acquire(resource, ttl10s())) {
            granted = lease.token().value();
        }
        put(resource, Map.of(DynamoDbLockProvider.OWNER, AttributeValue.fromS("old-owner"),
                DynamoDbLockProvider.EXPIRES, AttributeValue.fromN(Long.toString(System.currentTimeMillis() + 1500)),
                DynamoDbLockProvider.TOKEN, AttributeValue.fromN("5")));
        assertThat(second.tryAcquire(resource, ttl10s())).isEmpty();
        Lease after = second.acquire(resource, ttl10s().withWaitTimeout(Duration.ofSeconds(10)));
        assertThat(after.token().value()).isGreaterThan(granted);
        after.release();
    }

    /**
     * Old state and a fast clock together, the documented limit (docs/dynamodb-lock.md): a client
     * whose clock ran ten minutes ahead took the lock, the table is then restored to a point before
     * that grant, and a client on the true time takes the lock. What holds: its token is above the
     * restored item's and at least its own clock. What cannot hold without a record the restore
     * does not touch: being above the fast client's token, which only the lost item knew — the
     * guide tells operators to raise the tokens after a restore.
     */
    @Test
    void aRestoreAfterAFastClocksGrantKeepsOnlyTheClockFloorTheDocumentedLimit() {
        String resource = resource("restore-skew");
        long before;
        try (Lease lease = first.tryAcquire(resource, ttl10s()).orElseThrow()) {
            before = lease.token().value();
        }
        long fast;
        try (DynamoDbLockProvider ahead = DynamoDbLockProvider.builder(newClient()).table(TABLE)
                .wallClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10))).build();
                Lease lease = ahead.tryAcquire(resource, ttl10s()).orElseThrow()) {
            fast = lease.token().value();
        }
        put(resource, Map.of(DynamoDbLockProvider.TOKEN, AttributeValue.fromN(Long.toString(before)))); // the restore
        long clockFloor = System.currentTimeMillis() * 1000;
        try (Lease after = second.tryAcquire(resource, ttl10s()).orElseThrow()) {
            assertThat(after.token().value()).as("token after the restore").isGreaterThan(before)
                    .isGreaterThanOrEqualTo(clockFloor).isLessThan(fast);
        }
    }

    /**
     * A silent server fails a call within the request timeout: a grant that gets no answer is
     * followed by a give-back that gets none either, so the caller waits two request timeouts.
     */
    @Test
    void aSilentServerFailsATryAcquireWithinOneRequestTimeout() {
        newClient();
        Duration timeout = Duration.ofSeconds(1);
        try (LaggingProxy proxy = LaggingProxy.start("127.0.0.1", URI.create(endpoint()).getPort());
                DynamoDbClient client = DynamoDbLockProviderIT.client("http://127.0.0.1:" + proxy.port());
                DynamoDbLockProvider silent = DynamoDbLockProvider.builder(client).table(TABLE).requestTimeout(timeout)
                        .build()) {
            silent.tryAcquire(resource("warm-up"), ttl10s()).orElseThrow().release();
            proxy.holdReplies();
            long started = System.nanoTime();
            assertThatThrownBy(() -> silent.tryAcquire(resource("silent"), ttl10s()))
                    .isInstanceOf(LockUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(timeout.plusMillis(700));
            proxy.passReplies();
        }
    }

    /**
     * An interrupt that lands in the consistent read after a refused grant (the lock is held): the
     * acquire must end with InterruptedException, as it does when the interrupt lands in the grant.
     */
    @Test
    void anInterruptDuringTheReReadEndsTheAcquireWithInterruptedException() throws Exception {
        // a server returning ALL_OLD (moto) needs no re-read: nothing to interrupt
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("ADV_DYNAMODB_ENDPOINT") == null,
                "the endpoint returns the old item");
        String resource = resource("interrupt-read");
        Lease held = first.tryAcquire(resource, ttl10s()).orElseThrow();
        ExecutionInterceptor interruptOnRead = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof GetItemRequest) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        newClient();
        try (DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(URI.create(endpoint()))
                .region(software.amazon.awssdk.regions.Region.of(dev.fencing.testkit.servers.DynamoDbTestServer.REGION))
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("test", "test")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                .overrideConfiguration(c -> c.addExecutionInterceptor(interruptOnRead)).build();
                DynamoDbLockProvider interrupted = DynamoDbLockProvider.builder(client).table(TABLE).build()) {
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread acquirer = new Thread(() -> {
                try (Lease lease = interrupted.acquire(resource, ttl10s().withWaitTimeout(Duration.ofSeconds(5)))) {
                    outcome.set(lease);
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            acquirer.start();
            acquirer.join(10_000);
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        } finally {
            held.release();
        }
    }

    /** A table name DynamoDB cannot hold is refused by the builder, before any request. */
    @Test
    void aTableNameDynamoDbRefusesIsRefusedBeforeAnyRequest() {
        for (String bad : new String[] {"ab", "fencing locks", "locks/2026", "x".repeat(256), "läser"}) {
            assertThatThrownBy(() -> DynamoDbLockProvider.builder(raw).table(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
            assertThatThrownBy(() -> DynamoDbLockProvider.createTable(raw, bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
        }
        assertThat(DynamoDbLockProvider.builder(raw).table("a.b-c_9")).isNotNull();
    }

    /**
     * Four providers on one frozen clock (every grant sees the same microsecond) take turns on one
     * lock: every token differs, and each is larger than the one before it in grant order.
     */
    @Test
    void clientsOnTheSameMicrosecondNeverShareAToken() throws Exception {
        // moto 5.2.1 does not serialize conditional writes of one item (two of sixteen concurrent
        // attribute_not_exists updates can both succeed): this needs dynalite or DynamoDB
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("ADV_DYNAMODB_ENDPOINT") == null,
                "the endpoint's conditional writes may not be atomic");
        String resource = resource("same-micro");
        Clock frozen = Clock.fixed(java.time.Instant.now(), java.time.ZoneOffset.UTC);
        java.util.List<DynamoDbLockProvider> providers = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            providers.add(DynamoDbLockProvider.builder(newClient()).table(TABLE).wallClock(frozen).build());
        }
        java.util.List<Long> tokens = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger holders = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean overlap = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        for (DynamoDbLockProvider provider : providers) {
            Thread thread = new Thread(() -> {
                for (int round = 0; round < 10; round++) {
                    try (Lease lease = provider.acquire(resource, ttl10s().withWaitTimeout(Duration.ofSeconds(30)))) {
                        if (holders.incrementAndGet() != 1) {
                            overlap.set(true);
                        }
                        tokens.add(lease.token().value());
                        holders.decrementAndGet();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        providers.forEach(DynamoDbLockProvider::close);
        assertThat(overlap).isFalse();
        assertThat(tokens).hasSize(40).doesNotHaveDuplicates().isSorted();
    }

    /**
     * Eight providers cycle one lock as fast as they can. A waiting grant whose write is refused
     * reads the item back; when another client took and freed the lock in between, its token came
     * from a later clock than the waiter's, so a waiter that only steps past the token it read
     * lags the clock round after round. A lock that frees as fast as it is taken is contended, not
     * unreachable: every acquire waits and gets it, none fails.
     */
    @Test
    void aLockTakenAsFastAsItFreesMakesAcquireWaitNotFail() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("ADV_DYNAMODB_ENDPOINT") == null,
                "the endpoint's conditional writes may not be atomic");
        String resource = resource("churn");
        java.util.List<DynamoDbLockProvider> providers = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            providers.add(DynamoDbLockProvider.builder(newClient()).table(TABLE).build());
        }
        java.util.List<Long> tokens = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.List<Throwable> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.List<Thread> threads = new java.util.ArrayList<>();
        for (DynamoDbLockProvider provider : providers) {
            Thread thread = new Thread(() -> {
                for (int round = 0; round < 25; round++) {
                    try (Lease lease = provider.acquire(resource, ttl10s().withWaitTimeout(Duration.ofSeconds(60)))) {
                        tokens.add(lease.token().value());
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(120_000);
        }
        providers.forEach(DynamoDbLockProvider::close);
        assertThat(failures).isEmpty();
        assertThat(tokens).hasSize(200).doesNotHaveDuplicates().isSorted();
    }

    /**
     * A release after another client took the lock over and released it again: the item has no
     * owner, as after one's own release, but a larger token, so the release reports the loss.
     * Renewing after the takeover fails too.
     */
    @Test
    void aReleaseAfterATakeoverAndReleaseReportsTheLoss() throws Exception {
        String resource = resource("takeover-release");
        Lease expired = first.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofMillis(200))).orElseThrow();
        Lease renewedLate = first.tryAcquire(resource("other"), ttl10s()).orElseThrow();
        Lease takeover = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> second.tryAcquire(resource, ttl10s()), java.util.Optional::isPresent).orElseThrow();
        assertThat(takeover.token().value()).isGreaterThan(expired.token().value());
        assertThatThrownBy(() -> expired.renew(Duration.ofSeconds(10)))
                .isInstanceOf(dev.fencing.core.LeaseLostException.class);
        takeover.release();
        Lease again = second.tryAcquire(resource, ttl10s()).orElseThrow();
        again.release();
        assertThatThrownBy(expired::release).isInstanceOf(dev.fencing.core.LeaseLostException.class);
        renewedLate.release();
    }

    /**
     * The holder's release lands, its reply is lost, and before the SDK re-sends it a waiter
     * takes the freed lock: the re-sent release finds another owner and a larger token. The
     * release was clean, and must be reported so, not as a lost lease.
     */
    @Test
    void aReleaseWhoseReplyIsLostWhileAWaiterTakesTheLockIsClean() throws Exception {
        String resource = resource("lost-release");
        dev.fencing.testkit.RecordingListener heard = new dev.fencing.testkit.RecordingListener();
        java.util.concurrent.atomic.AtomicReference<Lease> waiter = new java.util.concurrent.atomic.AtomicReference<>();
        try (dev.fencing.testkit.ReplyDroppingProxy proxy = dev.fencing.testkit.ReplyDroppingProxy.inFrontOf(endpoint());
                DynamoDbClient throughProxy = DynamoDbLockProviderIT.client(proxy.httpEndpoint());
                DynamoDbLockProvider holder = DynamoDbLockProvider.builder(throughProxy).table(TABLE).listener(heard)
                        .build()) {
            Lease lease = holder.tryAcquire(resource, ttl10s()).orElseThrow();
            proxy.dropReplyTo("SET #released", () -> waiter.set(second.tryAcquire(resource, ttl10s()).orElseThrow()));

            lease.release();

            assertThat(proxy.dropped()).as("the release's reply was lost").isEqualTo(1);
            assertThat(waiter.get().token().value()).isGreaterThan(lease.token().value());
            assertThat(heard.released()).as("releases heard").isEqualTo(1);
            assertThat(heard.lost()).as("losses heard").isZero();
            waiter.get().release();
        }
    }

    /**
     * A lease whose TTL ran out while nobody took the lock is over: the Lease contract, the
     * in-memory reference and this provider's own inspect say so. Its renewal must not bring it
     * back, and its release must report the loss (and still free the lock).
     */
    @Test
    void aLeaseWhoseTtlRanOutIsLostAtRenewalAndAtRelease() {
        String renewed = resource("ttl-renew");
        String released = resource("ttl-release");
        Lease renewing = first.tryAcquire(renewed, LeaseOptions.ofTtl(Duration.ofMillis(300))).orElseThrow();
        Lease releasing = first.tryAcquire(released, LeaseOptions.ofTtl(Duration.ofMillis(300))).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> first.inspect(renewed).orElseThrow().holder().isEmpty()
                && first.inspect(released).orElseThrow().holder().isEmpty());

        assertThatThrownBy(() -> renewing.renew(Duration.ofSeconds(10))).isInstanceOf(dev.fencing.core.LeaseLostException.class);
        assertThat(first.inspect(renewed).orElseThrow().holder()).as("after the refused renewal").isEmpty();
        assertThatThrownBy(releasing::release).isInstanceOf(dev.fencing.core.LeaseLostException.class);
        assertThat(second.tryAcquire(released, ttl10s())).as("the lock after the expired lease's release").isPresent();
    }

    /** amazon-dynamodb-lock-client's table is keyed {@code key}: every grant on it would fail. */
    @Test
    void createTableRefusesAnExistingTableWithAnotherKey() {
        String other = "lock_client_" + UUID.randomUUID().toString().substring(0, 8);
        raw.createTable(r -> r.tableName(other)
                .keySchema(software.amazon.awssdk.services.dynamodb.model.KeySchemaElement.builder().attributeName("key")
                        .keyType(software.amazon.awssdk.services.dynamodb.model.KeyType.HASH).build())
                .attributeDefinitions(software.amazon.awssdk.services.dynamodb.model.AttributeDefinition.builder()
                        .attributeName("key").attributeType(software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType.S)
                        .build())
                .billingMode(software.amazon.awssdk.services.dynamodb.model.BillingMode.PAY_PER_REQUEST));
        assertThatThrownBy(() -> DynamoDbLockProvider.createTable(raw, other)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'" + other + "'").hasMessageContaining("key (HASH)").hasMessageContaining("'resource'");
        DynamoDbLockProvider.createTable(raw, TABLE); // the lock table itself passes
    }

    /**
     * A 6 s burst of ProvisionedThroughputExceededException while a waiting acquire has 30 s: the
     * server answered every request ("too busy"), so the acquire waits on and gets the lock once the
     * burst is over, as amazon-dynamodb-lock-client does, instead of failing as unreachable.
     */
    @Test
    void aBurstOfThrottlingDoesNotEndAWaitingAcquire() throws Exception {
        String resource = resource("throttled");
        try (ThrottlingProxy proxy = ThrottlingProxy.inFrontOf(endpoint());
                DynamoDbClient throughProxy = DynamoDbLockProviderIT.client(proxy.endpoint());
                DynamoDbLockProvider waiter = DynamoDbLockProvider.builder(throughProxy).table(TABLE).build()) {
            Lease held = first.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow();
            proxy.throttleFor(Duration.ofSeconds(6));
            Lease granted = waiter.acquire(resource, LeaseOptions.builder().ttl(Duration.ofSeconds(10))
                    .waitTimeout(Duration.ofSeconds(30)).build());
            assertThat(proxy.throttled()).as("requests answered throttled").isPositive();
            assertThat(granted.token().value()).isGreaterThan(held.token().value());
            granted.release();
        }
    }

    /**
     * Old state comes back, seen by a waiter that lives through it: a waiter saw the holder's
     * version, the holder renewed, and a restore brought the item back with the version the waiter
     * saw. A waiter that had not looked since must start counting again, not take the lock from a
     * holder whose renewed lease is still running (both on one injected monotonic clock).
     */
    @Test
    void aVersionBroughtBackByARestoreDoesNotLetAWaiterTakeARenewedLease() {
        String resource = resource("restore-version");
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
        try (DynamoDbLockProvider holding = DynamoDbLockProvider.builder(newClient()).table(TABLE).clock(nanos::get)
                        .build();
                DynamoDbLockProvider waiting = DynamoDbLockProvider.builder(newClient()).table(TABLE).clock(nanos::get)
                        .build()) {
            Lease holder = holding.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow();
            Map<String, AttributeValue> before = raw.getItem(r -> r.tableName(TABLE).consistentRead(true)
                    .key(Map.of(DynamoDbLockProvider.KEY, AttributeValue.fromS(resource)))).item();
            assertThat(waiting.tryAcquire(resource, ttl10s())).isEmpty(); // sees the first version at 0

            nanos.addAndGet(Duration.ofMillis(1500).toNanos());
            holder.renew(Duration.ofSeconds(2)); // a new version; the lease now runs to 3.5 s
            raw.putItem(r -> r.tableName(TABLE).item(before)); // the restore: the first version is back

            nanos.addAndGet(Duration.ofMillis(1600).toNanos()); // 3.1 s: the first version "seen" 3.1 s ago
            assertThat(holder.isValid()).isTrue();
            assertThat(waiting.tryAcquire(resource, ttl10s())).as("a takeover of the renewed lease").isEmpty();
            holder.release();
        }
    }
}
