package dev.fencing.dynamodb.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockProvider;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.StaleTokenException;
import dev.fencing.testkit.InMemoryFencedStore;
import dev.fencing.testkit.LockProviderContract;
import dev.fencing.testkit.UnclearReplies;
import dev.fencing.testkit.servers.DynamoDbTestServer;
import dev.fencing.testkit.servers.LaggingProxy;
import dev.fencing.testkit.servers.TestServers;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The provider on the testkit's dynalite, each provider with a DynamoDB client of its own. */
class DynamoDbLockProviderIT extends LockProviderContract {

    private static final String TABLE = "fencing_locks_it";
    private static boolean created;

    static DynamoDbClient client(String endpoint) {
        return DynamoDbClient.builder().endpointOverride(URI.create(endpoint)).region(Region.of(DynamoDbTestServer.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    static synchronized DynamoDbClient newClient() {
        DynamoDbClient client = client(TestServers.dynamoDb().endpoint());
        if (!created) {
            DynamoDbLockProvider.createTable(client, TABLE);
            created = true;
        }
        return client;
    }

    private static DynamoDbLockProvider.Builder builder() {
        return DynamoDbLockProvider.builder(newClient()).table(TABLE);
    }

    @Override
    protected LockProvider createProvider(FencingListener listener) {
        return builder().listener(listener).build();
    }

    @Override
    protected LockProvider createUnreachableProvider() {
        newClient();
        LaggingProxy proxy = LaggingProxy.start("127.0.0.1", URI.create(TestServers.dynamoDb().endpoint()).getPort());
        DynamoDbLockProvider cutOff = DynamoDbLockProvider.builder(client("http://127.0.0.1:" + proxy.port()))
                .table(TABLE).requestTimeout(Duration.ofSeconds(1)).build();
        proxy.close();
        return cutOff;
    }

    /** The grant's reply is held past the request timeout; the grant itself reaches the server. */
    @Override
    protected Optional<UnclearReplies> unclearReplies() {
        newClient();
        LaggingProxy proxy = LaggingProxy.start("127.0.0.1", URI.create(TestServers.dynamoDb().endpoint()).getPort());
        DynamoDbClient client = client("http://127.0.0.1:" + proxy.port());
        DynamoDbLockProvider held = DynamoDbLockProvider.builder(client).table(TABLE)
                .requestTimeout(Duration.ofMillis(700)).build();
        return Optional.of(UnclearReplies.of(held, proxy::holdReplies, proxy::passReplies, () -> {
            held.close();
            client.close();
            proxy.close();
        }));
    }

    @Test
    void tokensRiseAcrossClientsAndReleasesKeepTheCounter() throws Exception {
        String resource = resource("counter");
        LockProvider other = anotherProvider();
        long previous = 0;
        for (int i = 0; i < 6; i++) {
            LockProvider next = i % 2 == 0 ? provider : other;
            try (Lease lease = next.acquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                assertThat(lease.token().value()).isGreaterThan(previous);
                previous = lease.token().value();
            }
        }
        LockState state = provider.inspect(resource).orElseThrow();
        assertThat(state.isHeld()).isFalse();
        assertThat(state.lastToken()).hasValue(previous);
    }

    /**
     * Old state comes back: the table restored to a point before the last grants (the item's token
     * far behind). The next grant's token is still above every token granted before the restore.
     */
    @Test
    void aRestoredTableWithAnOlderTokenStillGrantsALargerOne() throws Exception {
        String resource = resource("restored");
        long granted;
        try (Lease lease = provider.acquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
            granted = lease.token().value();
        }
        try (DynamoDbClient raw = newClient()) {
            raw.putItem(r -> r.tableName(TABLE).item(Map.of(DynamoDbLockProvider.KEY, AttributeValue.fromS(resource),
                    DynamoDbLockProvider.TOKEN, AttributeValue.fromN("5"))));
        }
        try (Lease after = anotherProvider().acquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
            assertThat(after.token().value()).isGreaterThan(granted);
        }
    }

    /**
     * The default expiry needs no synchronized clocks: a waiter whose wall clock is twenty minutes
     * ahead of the holder's takes the lock only after the holder's own lease is over (by the
     * holder's clock), and the holder then finds it lost at renewal and release.
     */
    @Test
    void withClocksMinutesApartAWaiterTakesTheLockOnlyAfterTheHoldersLeaseEnded() {
        String resource = resource("two-clocks");
        Duration ttl = Duration.ofSeconds(2);
        try (DynamoDbLockProvider late = builder().wallClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10)))
                        .build();
                DynamoDbLockProvider early = builder().wallClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10)))
                        .build()) {
            Lease holder = late.tryAcquire(resource, LeaseOptions.ofTtl(ttl)).orElseThrow();
            assertThat(early.tryAcquire(resource, LeaseOptions.ofTtl(ttl))).as("a takeover while the lease runs").isEmpty();

            Lease next = await().atMost(ttl.multipliedBy(15)).pollInterval(Duration.ofMillis(25))
                    .until(() -> early.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10))), Optional::isPresent)
                    .orElseThrow();
            assertThat(holder.isValid()).as("the holder's lease when the waiter took the lock").isFalse();
            assertThat(next.token().value()).isGreaterThan(holder.token().value());
            assertThatThrownBy(() -> holder.renew(ttl)).isInstanceOf(LeaseLostException.class);
            next.release();
        }
    }

    /**
     * Renewals change the item's version, so a waiter restarts its count: while the holder's
     * watchdog renews, a waiter on a clock ten minutes ahead never holds the lock at the same time
     * as the holder (if a stalled renewal loses the lease on a busy machine, the holder's lease is
     * over before the waiter's grant).
     */
    @Test
    void aRenewingHolderIsNeverOverlappedByAWaiterWhoseClockIsAhead() throws Exception {
        String resource = resource("renewing");
        Duration ttl = Duration.ofSeconds(2);
        try (DynamoDbLockProvider early = builder().wallClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10)))
                .build()) {
            Lease holder = provider.acquire(resource, LeaseOptions.ofTtl(ttl).withAutoRenew(true));
            try {
                Optional<Lease> taken = Optional.empty();
                long polls = 0;
                long until = System.nanoTime() + ttl.multipliedBy(3).toNanos();
                while (taken.isEmpty() && System.nanoTime() - until < 0) {
                    taken = early.tryAcquire(resource, LeaseOptions.ofTtl(ttl));
                    polls++;
                    Thread.sleep(50);
                }
                // the point: never two valid leases; on a quiet machine the waiter never gets it
                assertThat(polls).isPositive();
                if (taken.isPresent()) {
                    assertThat(holder.isValid()).as("the holder's lease when the waiter took the lock").isFalse();
                    taken.get().release();
                }
            } finally {
                holder.close();
            }
        }
    }

    /**
     * With {@link DynamoDbLockProvider.Expiry#SYNCHRONIZED_CLOCKS}, a client whose clock is behind
     * still gets a larger token than the last grant (the counter wins over its clock); one whose
     * clock is ahead can take a lock before its holder's lease ends — that mode's documented limit —
     * and its larger token makes a fenced store refuse the earlier holder.
     */
    @Test
    void skewedClocksNeverRepeatATokenAndAnEarlyTakeoverIsFencedOff() throws Exception {
        String resource = resource("skew");
        Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10));
        Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10));
        LockProvider late = builder().expiry(DynamoDbLockProvider.Expiry.SYNCHRONIZED_CLOCKS).wallClock(behind).build();
        LockProvider early = builder().expiry(DynamoDbLockProvider.Expiry.SYNCHRONIZED_CLOCKS).wallClock(ahead).build();
        try {
            long first;
            try (Lease lease = provider.acquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(10)))) {
                first = lease.token().value();
            }
            Lease holder = late.acquire(resource, LeaseOptions.ofTtl(Duration.ofMinutes(5)));
            assertThat(holder.token().value()).isGreaterThan(first);

            Lease takeover = early.tryAcquire(resource, LeaseOptions.ofTtl(Duration.ofSeconds(30))).orElseThrow();
            assertThat(takeover.token().value()).isGreaterThan(holder.token().value());
            var store = InMemoryFencedStore.create();
            store.write(takeover.token(), "item", "new holder");
            assertThatThrownBy(() -> store.write(holder.token(), "item", "old holder"))
                    .isInstanceOf(StaleTokenException.class);
            takeover.release();
        } finally {
            late.close();
            early.close();
        }
        assertThat(Clock.systemUTC().getZone()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    void aMissingTableIsANamedFailureNotAnEmptyAnswer() {
        try (DynamoDbLockProvider lost = DynamoDbLockProvider.builder(newClient()).table("no_such_table").build()) {
            assertThatThrownBy(() -> lost.tryAcquire(resource("x"), LeaseOptions.ofTtl(Duration.ofSeconds(5))))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("no_such_table");
        }
    }

    @Test
    void badSettingsAreRefusedWithTheirRange() {
        DynamoDbClient client = newClient();
        assertThatThrownBy(() -> DynamoDbLockProvider.builder(client).requestTimeout(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout");
        assertThatThrownBy(() -> DynamoDbLockProvider.builder(client).table(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table");
        assertThatThrownBy(() -> DynamoDbLockProvider.builder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(FencingToken.of("x", 1)).isNotNull();
    }

    /** A server that accepts the connection and never answers fails the attempt within the request timeout. */
    @Test
    void aSilentServerFailsAnAttemptWithinTheRequestTimeout() {
        newClient();
        try (LaggingProxy proxy = LaggingProxy.start("127.0.0.1", URI.create(TestServers.dynamoDb().endpoint()).getPort());
                DynamoDbClient client = client("http://127.0.0.1:" + proxy.port());
                DynamoDbLockProvider silent = DynamoDbLockProvider.builder(client).table(TABLE)
                        .requestTimeout(Duration.ofMillis(500)).build()) {
            silent.tryAcquire(resource("warm-up"), LeaseOptions.ofTtl(Duration.ofSeconds(5))).orElseThrow().release();
            proxy.holdReplies();
            long started = System.nanoTime();
            assertThatThrownBy(() -> silent.tryAcquire(resource("silent"), LeaseOptions.ofTtl(Duration.ofSeconds(5))))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("did not answer");
            // the grant and its give-back, each bounded by 500 ms, and slack for a loaded machine
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));
            proxy.passReplies();
        }
    }
}
