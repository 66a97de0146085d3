package dev.fencing.dynamodb.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.testkit.RecordingListener;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The adversarial review of issue 44's changes: attacks on the DynamoDB lock provider, each
 * against dynalite with two or more clients. All but the first failed before their fixes; the first
 * shows a documented limit.
 */
class DynamoDbLockReviewIT {

    private static final String TABLE = "fencing_locks_review";

    private final DynamoDbClient raw = newClient();
    private final DynamoDbLockProvider first = DynamoDbLockProvider.builder(newClient()).table(TABLE).build();
    private final DynamoDbLockProvider second = DynamoDbLockProvider.builder(newClient()).table(TABLE).build();

    private static DynamoDbClient newClient() {
        return LockTables.client(TABLE);
    }

    @AfterEach
    void closeAll() {
        first.close();
        second.close();
        raw.close();
    }

    private static String resource(String name) {
        return "adv44-" + name + "-" + UUID.randomUUID();
    }

    private static LeaseOptions ttl10s() {
        return LeaseOptions.ofTtl(Duration.ofSeconds(10));
    }

    private Map<String, AttributeValue> item(String resource) {
        return raw.getItem(r -> r.tableName(TABLE).consistentRead(true)
                .key(Map.of(DynamoDbLockProvider.KEY, AttributeValue.fromS(resource)))).item();
    }

    // ---------------------------------------------------------------------------------------------
    // Guarantee 2: two valid leases never overlap under OWN_CLOCK (restores bringing an old version back)
    // ---------------------------------------------------------------------------------------------

    /**
     * The documented limit of expiry by the waiter's own clock: a waiter that keeps looking (every
     * look well within the lease) saw the holder's first version; the holder renewed (its lease now
     * runs to 2.5 s); a restore brought the first version back before the waiter's next look. No
     * waiter can tell the version it counts from one restored, so at 2.1 s it takes the lock while
     * the holder's renewed lease is still valid — and its larger token makes every fenced store
     * refuse the holder (docs/dynamodb-lock.md, "Old state comes back").
     */
    @Test
    void aRestoreUndoingARenewalBetweenTwoLooksCanLetAWaiterInEarlyAndItsTokenFencesTheHolder() {
        String resource = resource("restore-recent");
        AtomicLong nanos = new AtomicLong();
        try (DynamoDbLockProvider holding = DynamoDbLockProvider.builder(newClient()).table(TABLE).clock(nanos::get)
                        .build();
                DynamoDbLockProvider waiting = DynamoDbLockProvider.builder(newClient()).table(TABLE).clock(nanos::get)
                        .build()) {
            Lease holder = holding.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(2))).orElseThrow();
            Map<String, AttributeValue> before = item(resource);
            assertThat(waiting.tryAcquire(resource, ttl10s())).isEmpty(); // sees v0 at 0 s

            nanos.addAndGet(Duration.ofMillis(500).toNanos());
            holder.renew(Duration.ofSeconds(2)); // v1: the lease now runs to 2.5 s
            raw.putItem(r -> r.tableName(TABLE).item(before)); // the restore: v0 is back

            nanos.addAndGet(Duration.ofMillis(1000).toNanos()); // 1.5 s: a look 1.5 s after the last
            assertThat(waiting.tryAcquire(resource, ttl10s())).isEmpty();

            nanos.addAndGet(Duration.ofMillis(600).toNanos()); // 2.1 s
            Lease early = waiting.tryAcquire(resource, ttl10s()).orElseThrow();
            assertThat(holder.isValid()).isTrue();
            var store = dev.fencing.testkit.InMemoryFencedStore.create();
            store.write(early.token(), "item", "new holder");
            assertThatThrownBy(() -> store.write(holder.token(), "item", "old holder"))
                    .isInstanceOf(dev.fencing.core.StaleTokenException.class);
            early.release();
        }
    }

    /**
     * An item with an owner and an expiry but without {@code version}/{@code lease_ms} (written by
     * the provider before the OWN_CLOCK commit, a restore of such a backup, or another tool) whose
     * expiry is a minute away: the waiter counts its own 1 s TTL, not the holder's lease, and takes
     * the lock ~1 s after first seeing it, 59 s before the holder's written expiry.
     */
    @Test
    void anItemWithoutLeaseMsIsTakenAfterTheWaitersTtlNotTheHolders() {
        String resource = resource("no-lease-ms");
        long expires = System.currentTimeMillis() + 60_000;
        Map<String, AttributeValue> old = new HashMap<>(Map.of(DynamoDbLockProvider.KEY, AttributeValue.fromS(resource),
                DynamoDbLockProvider.OWNER, AttributeValue.fromS("holder-on-the-previous-release"),
                DynamoDbLockProvider.EXPIRES, AttributeValue.fromN(Long.toString(expires)),
                DynamoDbLockProvider.TOKEN, AttributeValue.fromN(Long.toString(System.currentTimeMillis() * 1000))));
        raw.putItem(r -> r.tableName(TABLE).item(old));
        LeaseOptions shortTtl = LeaseOptions.ofTtl(Duration.ofSeconds(1));
        assertThat(first.tryAcquire(resource, shortTtl)).isEmpty();
        long startedAt = System.currentTimeMillis();
        Optional<Lease> taken = await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(100))
                .until(() -> first.tryAcquire(resource, shortTtl), t -> t.isPresent() || System.currentTimeMillis()
                        - startedAt > 5_000);
        taken.ifPresent(Lease::release);
        assertThat(taken).as("taken %d ms before the holder's written expiry", expires - System.currentTimeMillis())
                .isEmpty();
    }

    // ---------------------------------------------------------------------------------------------
    // Guarantee 3: unclear replies, close
    // ---------------------------------------------------------------------------------------------

    /**
     * Unclear reply, the other order: the grant's request is delayed in the network and reaches
     * the server only after the attempt gave up. The attempt throws LockUnavailableException and
     * sends its give-back at once; the give-back lands first (owner not there yet), then the
     * delayed grant arrives. Before the fix it landed: nobody was handed a lease, yet the lock was
     * held by an owner id no lease has, and every waiter waited out a whole lease. The give-back now
     * raises the free lock's token to the attempt's candidate, so the late grant fails its condition.
     *
     * <p>The delay is simulated exactly: an interceptor on the holder's client fails the grant's
     * call as a dropped connection would (before the bytes reach the server) and keeps the request;
     * the test delivers the very same request later.
     */
    @Test
    void aGrantDeliveredAfterItsGiveBackIsRefusedAndTheLockStaysFree() throws Exception {
        String resource = resource("late-grant");
        first.tryAcquire(resource, ttl10s()).orElseThrow().release(); // a lock used before: the fast path
        AtomicBoolean armed = new AtomicBoolean();
        AtomicReference<UpdateItemRequest> delayed = new AtomicReference<>();
        AtomicInteger giveBacksDone = new AtomicInteger();
        ExecutionInterceptor network = new ExecutionInterceptor() {
            @Override
            public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                if (context.request() instanceof UpdateItemRequest update && update.updateExpression().startsWith("SET #owner")
                        && armed.compareAndSet(true, false)) {
                    delayed.set(update);
                    throw SdkClientException.create("connection reset (the request is still on its way)");
                }
            }

            @Override
            public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
                count(context.request());
            }

            @Override
            public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
                count(context.request());
            }

            private void count(software.amazon.awssdk.core.SdkRequest request) {
                if (request instanceof UpdateItemRequest update && update.updateExpression().startsWith("SET #token = :candidate")) {
                    giveBacksDone.incrementAndGet();
                }
            }
        };
        try (DynamoDbClient intercepted = DynamoDbClient.builder().endpointOverride(URI.create(TestServers.dynamoDb()
                        .endpoint())).region(Region.of("us-east-1"))
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                        .httpClient(UrlConnectionHttpClient.create())
                        .overrideConfiguration(c -> c.addExecutionInterceptor(network)).build();
                DynamoDbLockProvider unlucky = DynamoDbLockProvider.builder(intercepted).table(TABLE).build()) {
            armed.set(true);
            assertThatThrownBy(() -> unlucky.tryAcquire(resource, ttl10s())).isInstanceOf(LockUnavailableException.class);
            // the give-back: no owner of this attempt to remove, so it raises the free lock's token to the candidate
            await().atMost(Duration.ofSeconds(10)).until(() -> giveBacksDone.get() >= 1);

            UpdateItemRequest late = delayed.get();
            assertThatThrownBy(() -> raw.updateItem(UpdateItemRequest.builder().tableName(late.tableName()).key(late.key())
                    .updateExpression(late.updateExpression()).conditionExpression(late.conditionExpression())
                    .expressionAttributeNames(late.expressionAttributeNames())
                    .expressionAttributeValues(late.expressionAttributeValues()).build()))
                    .as("the grant arriving after its give-back")
                    .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException.class);

            Optional<Lease> next = second.tryAcquire(resource, ttl10s());
            next.ifPresent(Lease::release);
            assertThat(next).as("the lock after a failed tryAcquire whose grant arrived late; item now held by %s",
                    item(resource).get(DynamoDbLockProvider.OWNER)).isPresent();
        }
    }

    /**
     * A release whose reply is lost by a timeout (the server released; the reply comes too late,
     * the server answers again right after): the SDK does not re-send past its apiCallTimeout and
     * the provider does not either, so {@code release()} throws and the listener hears a loss,
     * although the lease was released cleanly and a re-send would have found its released_token.
     */
    @Test
    void aReleaseWhoseReplyTimesOutAfterTheServerReleasedReportsACleanRelease() {
        String resource = resource("release-timeout");
        RecordingListener heard = new RecordingListener();
        try (LaggingProxy proxy = LaggingProxy.start("127.0.0.1", URI.create(TestServers.dynamoDb().endpoint()).getPort());
                DynamoDbClient client = DynamoDbLockProviderIT.client("http://127.0.0.1:" + proxy.port());
                DynamoDbLockProvider holding = DynamoDbLockProvider.builder(client).table(TABLE).listener(heard)
                        .requestTimeout(Duration.ofMillis(700)).build()) {
            Lease lease = holding.tryAcquire(resource, ttl10s()).orElseThrow();
            proxy.holdReplies();
            CompletableFuture.delayedExecutor(1200, TimeUnit.MILLISECONDS).execute(proxy::passReplies);
            Throwable thrown = null;
            try {
                lease.release();
            } catch (RuntimeException e) {
                thrown = e;
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> !item(resource).containsKey(DynamoDbLockProvider.OWNER));
            assertThat(item(resource).get(DynamoDbLockProvider.RELEASED))
                    .as("the server released it").isEqualTo(AttributeValue.fromN(Long.toString(lease.token().value())));
            assertThat(thrown).as("release() of a lease the server released").isNull();
            assertThat(heard.lost()).as("losses heard").isZero();
        }
    }

    /**
     * A thread waits in {@code acquire} while another holds the lock; the waiter's provider is
     * closed (close() is documented to release what the provider handed out); the holder then
     * releases. The closed provider's waiting acquire goes on polling and is granted after close:
     * a lease that close() never releases, from a provider that is closed.
     */
    @Test
    void anAcquireWaitingWhenItsProviderClosesIsNotGrantedAfterwards() throws Exception {
        String resource = resource("close-race");
        Lease held = first.tryAcquire(resource, ttl10s()).orElseThrow();
        DynamoDbLockProvider closing = DynamoDbLockProvider.builder(newClient()).table(TABLE).build();
        CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return closing.acquire(resource, ttl10s().withWaitTimeout(Duration.ofSeconds(15)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).pollDelay(Duration.ofMillis(300)).until(() -> !waiting.isDone());
        closing.close();
        held.release();
        Lease afterClose = null;
        try {
            afterClose = waiting.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException expected) {
            // refused because the provider closed: what close() should mean
        }
        boolean stillHeld = first.inspect(resource).orElseThrow().isHeld();
        if (afterClose != null) {
            afterClose.release();
        }
        assertThat(afterClose).as("a lease granted by a provider closed before the grant (lock held after close: %s)",
                stillHeld).isNull();
    }

    // ---------------------------------------------------------------------------------------------
    // Guarantee 4: listing and pruning never delete non-lock items
    // ---------------------------------------------------------------------------------------------

    /**
     * A table shared with the application's own items through the partition key only
     * ({@code partitionKey("pk")}, no sort key): an application item that was never a lock but has
     * a numeric {@code token} attribute (an API key's serial, a counter) and no owner is deleted by
     * {@code prune}: the filter is only "no owner and a token behind the floor", nothing marks an
     * item as the provider's (every grant writes {@code version}/{@code lease_ms}, prune checks neither).
     */
    @Test
    void pruneOnAPartitionKeyOnlyTableDeletesAnItemThatWasNeverALock() {
        String shared = "adv44_pk_" + UUID.randomUUID().toString().substring(0, 8);
        try (DynamoDbLockProvider locks = DynamoDbLockProvider.builder(newClient()).table(shared).partitionKey("pk")
                .build()) {
            locks.createTable();
            raw.putItem(r -> r.tableName(shared).item(Map.of("pk", AttributeValue.fromS("api-key-7"),
                    "token", AttributeValue.fromN("12345"), "note", AttributeValue.fromS("application data"))));
            locks.tryAcquire("job-1", ttl10s()).orElseThrow().release();
            int deleted = locks.prune(Duration.ofMinutes(1));
            boolean appItemThere = raw.getItem(r -> r.tableName(shared).consistentRead(true)
                    .key(Map.of("pk", AttributeValue.fromS("api-key-7")))).hasItem();
            assertThat(appItemThere).as("the application's item after prune (items deleted: %d)", deleted).isTrue();
        } finally {
            raw.deleteTable(r -> r.tableName(shared));
        }
    }
}
