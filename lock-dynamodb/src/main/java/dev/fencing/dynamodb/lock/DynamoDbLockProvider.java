package dev.fencing.dynamodb.lock;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseOptions;
import dev.fencing.core.LockState;
import dev.fencing.core.LockUnavailableException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.core.spi.AbstractLockProvider;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.ProviderBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.SdkServiceClientConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

/**
 * A lock on one DynamoDB table: one item per resource, taken by one conditional write that also
 * raises the item's token. For teams on AWS with DynamoDB and no Redis, etcd or ZooKeeper.
 *
 * <h2>The token</h2>
 * The grant writes {@code token = max(previous token + 1, the acquirer's clock in microseconds)}
 * with the condition {@code token < :new} in the same {@code UpdateItem} that takes the lock, so
 * tokens of one resource are strictly increasing whatever the clocks do, and durable (DynamoDB
 * acknowledges a write once it is stored on several replicas). The item is never deleted — a
 * release only removes its owner — so the counter cannot start over. The clock floor keeps the
 * tokens ahead of the last grant after a point-in-time restore of the table to an older state, as
 * long as the acquirers' clocks were not set back by more than the restore went back.
 *
 * <h2>Expiry without synchronized clocks</h2>
 * DynamoDB has no server clock usable in a condition. By default ({@link Expiry#OWN_CLOCK}, as
 * amazon-dynamodb-lock-client) every grant and renewal writes a new {@code version} and the lease's
 * length, and a waiter takes a held lock only after seeing the same version for a whole lease on its
 * own monotonic clock; the holder counts its lease on its own monotonic clock from before its last
 * write, so its lease is over first, whatever the wall clocks say. {@link Expiry#SYNCHRONIZED_CLOCKS}
 * instead compares the holder's written {@code expires} with the waiter's wall clock: a takeover as
 * soon as the lease ends, but a waiter whose clock runs ahead by {@code d} takes the lock up to
 * {@code d} early. Neither repeats a token: a takeover carries a larger token, so every fenced store
 * refuses the earlier holder from its first write on.
 *
 * <h2>Unclear replies</h2>
 * A grant whose reply is lost is recognised if the SDK re-sends it (the item then shows this
 * attempt's owner and token); an attempt that ends without an answer sends an owner-checked write
 * that gives the lock back and throws {@link LockUnavailableException} without waiting for it (so a
 * silent server fails the call within one request timeout), so nobody waits out the TTL of a lock
 * nobody holds (if the give-back fails too, the TTL frees it); {@link #close} waits for the
 * give-backs still going out. Releases and renewals are owner-checked and refused past the
 * lease's own expiry (its monotonic clock; its wall clock with {@link Expiry#SYNCHRONIZED_CLOCKS}):
 * a lease whose TTL ran out is lost even if nobody took the lock. A
 * release records its token as the item's last released one, so a re-sent release whose first send
 * landed reports success, even if a waiter took the freed lock before the SDK re-sent it. A grant
 * answered "throttled" is no grant: a waiting acquire goes on waiting (whatever an earlier send may
 * have granted is given back).
 *
 * <h2>Items</h2>
 * An item per resource stays in the table for good (a release removes only its owner): its token is
 * the floor of the next grant. A table used for many short-lived resource names grows by one small
 * item (under 200 bytes) per name.
 *
 * <p>Every request is bounded by {@link Builder#requestTimeout}; a silent endpoint fails an
 * attempt within it. There are no release notices: a waiting acquire polls with its backoff.
 * Thread-safe; close it to stop its renewals (the client is the caller's to close).
 */
public final class DynamoDbLockProvider extends AbstractLockProvider {

    /** The default table, created by {@link #createTable}. */
    public static final String DEFAULT_TABLE = "fencing_locks";

    static final String KEY = "resource";
    static final String OWNER = "owner";
    static final String EXPIRES = "expires_ms";
    static final String TOKEN = "token";
    /** The token of the last release: a re-sent release that finds it knows its first send landed. */
    static final String RELEASED = "released_token";
    /** Changed by every grant and renewal: a waiter counts a lease from the moment it saw the version. */
    static final String VERSION = "version";
    /** The TTL of the last grant or renewal, in milliseconds: how long a waiter watches a version unchanged. */
    static final String LEASE = "lease_ms";
    /** How many sightings of held locks a provider remembers (the least recently seen are forgotten). */
    private static final int MAX_SIGHTINGS = 10_000;

    private static final int MAX_TOKEN_RACES = 8;
    private static final Duration TABLE_WAIT = Duration.ofMinutes(2);
    private static final int GIVE_BACK_THREADS = 4;
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z0-9_.-]{3,255}");

    private final DynamoDbClient client;
    private final String table;
    private final Clock wallClock;
    private final Duration requestTimeout;
    private final Expiry expiry;
    /** Per resource, the held item a waiter of this provider saw and since when (its own monotonic clock). */
    private final Map<String, Sighting> sightings = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Sighting> eldest) {
                    return size() > MAX_SIGHTINGS;
                }
            });
    /** Sends the give-backs of unclear grants, so that a silent server fails a call within one request timeout. */
    private final ThreadPoolExecutor giveBacks;

    private DynamoDbLockProvider(Builder builder) {
        super(builder, "fencing-dynamodb-lock-async");
        this.client = builder.client;
        this.table = builder.table;
        this.wallClock = builder.wallClock;
        this.requestTimeout = builder.requestTimeout;
        this.expiry = builder.expiry;
        this.giveBacks = new ThreadPoolExecutor(GIVE_BACK_THREADS, GIVE_BACK_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = Executors.defaultThreadFactory().newThread(runnable);
                    thread.setName("fencing-dynamodb-give-back");
                    thread.setDaemon(true);
                    return thread;
                });
        this.giveBacks.allowCoreThreadTimeOut(true);
    }

    /** A builder over {@code client}: table {@value #DEFAULT_TABLE}, 5 s request timeout. */
    public static Builder builder(DynamoDbClient client) {
        return new Builder(Checks.requireNonNull("client", client));
    }

    /** A provider over {@code client} with the defaults of {@link #builder}. */
    public static DynamoDbLockProvider create(DynamoDbClient client) {
        return builder(client).build();
    }

    /**
     * Creates {@code table} (string partition key {@value #KEY}, on-demand billing) unless it
     * exists, and waits until it is active.
     *
     * @throws IllegalStateException if the table exists with another key schema (nothing is changed) Needs {@code dynamodb:CreateTable} and
     * {@code dynamodb:DescribeTable}; the provider itself needs {@code dynamodb:UpdateItem} and
     * {@code dynamodb:GetItem} on the table only.
     */
    public static void createTable(DynamoDbClient client, String table) {
        Checks.requireNonNull("client", client);
        requireTableName(table);
        try {
            client.createTable(request -> request.tableName(table)
                    .keySchema(KeySchemaElement.builder().attributeName(KEY).keyType(KeyType.HASH).build())
                    .attributeDefinitions(AttributeDefinition.builder().attributeName(KEY)
                            .attributeType(ScalarAttributeType.S).build())
                    .billingMode(BillingMode.PAY_PER_REQUEST));
        } catch (ResourceInUseException exists) {
            // already there, or being created by another client: wait for it all the same
        }
        TableDescription found;
        try (DynamoDbWaiter waiter = DynamoDbWaiter.builder().client(client)
                .overrideConfiguration(config -> config.waitTimeout(TABLE_WAIT)).build()) {
            found = waiter.waitUntilTableExists(request -> request.tableName(table)).matched().response()
                    .map(DescribeTableResponse::table)
                    .orElseGet(() -> client.describeTable(request -> request.tableName(table)).table());
        }
        requireLockKeySchema(table, found);
    }

    /**
     * Refuses a table this provider cannot grant on: its only key must be the string partition key
     * {@value #KEY} (amazon-dynamodb-lock-client's tables are keyed {@code key}, for example).
     */
    static void requireLockKeySchema(String table, TableDescription found) {
        boolean keyed = found.keySchema().size() == 1 && KEY.equals(found.keySchema().get(0).attributeName())
                && found.keySchema().get(0).keyType() == KeyType.HASH
                && found.attributeDefinitions().stream().anyMatch(definition -> KEY.equals(definition.attributeName())
                        && definition.attributeType() == ScalarAttributeType.S);
        if (!keyed) {
            throw new IllegalStateException("table '" + table + "' exists with the key schema " + found.keySchema().stream()
                    .map(key -> key.attributeName() + " (" + key.keyTypeAsString() + ")").toList() + " and attributes "
                    + found.attributeDefinitions().stream().map(definition -> definition.attributeName() + ":"
                            + definition.attributeTypeAsString()).toList() + "; the lock table needs exactly one key, the"
                    + " string partition key '" + KEY + "', or every grant fails. Give the provider a table of its own"
                    + " (Builder.table and createTable with another name)");
        }
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        String owner = OwnerIds.random();
        long now = wallClock.millis();
        long candidate = Math.max(1, TimeUnit.MILLISECONDS.toMicros(now));
        AnswerWatch answers = new AnswerWatch();
        @Nullable Sighting takeover = expiry == Expiry.OWN_CLOCK ? elapsedSighting(resource) : null;
        for (int race = 0; race < MAX_TOKEN_RACES; race++) {
            Map<String, String> names = new HashMap<>(Map.of("#owner", OWNER, "#expires", EXPIRES, "#token", TOKEN,
                    "#version", VERSION, "#lease", LEASE));
            Map<String, AttributeValue> values = new HashMap<>();
            values.put(":owner", AttributeValue.fromS(owner));
            values.put(":expires", number(now + options.ttl().toMillis()));
            values.put(":token", number(candidate));
            values.put(":version", AttributeValue.fromS(versionOf(owner, 0)));
            values.put(":lease", number(options.ttl().toMillis()));
            String taken;
            if (expiry == Expiry.SYNCHRONIZED_CLOCKS) {
                values.put(":now", number(now));
                taken = " OR #expires < :now";
            } else {
                taken = takeover == null ? "" : " OR " + takeover.condition(values);
            }
            UpdateItemRequest grant = UpdateItemRequest.builder().tableName(table).key(key(resource))
                    .updateExpression("SET #owner = :owner, #expires = :expires, #token = :token, #version = :version,"
                            + " #lease = :lease")
                    .conditionExpression("(attribute_not_exists(#owner) OR attribute_not_exists(#expires)" + taken + ")"
                            + " AND (attribute_not_exists(#token) OR #token < :token)")
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout).addPlugin(answers)).build();
            try {
                client.updateItem(grant);
                sightings.remove(resource);
                return Optional.of(new DynamoDbLease(FencingToken.of(resource, candidate), owner, requestedAtNanos,
                        options.ttl()));
            } catch (ConditionalCheckFailedException refused) {
                Map<String, AttributeValue> current;
                try {
                    current = itemAfter(refused, resource);
                } catch (SdkException e) {
                    if (e instanceof DynamoDbException busy && busy.isThrottlingException()) {
                        sendGiveBack(resource, owner);
                        return Optional.empty(); // the re-read was throttled: try again after the backoff
                    }
                    LockUnavailableException failed = giveBack(resource, owner, e);
                    if (Thread.currentThread().isInterrupted()) {
                        return Optional.empty(); // as for an interrupt in the grant: the caller sees it
                    }
                    throw failed;
                }
                long token = longOf(resource, current, TOKEN);
                if (owner.equals(stringOf(current, OWNER)) && token == candidate) {
                    // the SDK re-sent a grant whose reply was lost: the lock is this attempt's
                    sightings.remove(resource);
                    return Optional.of(new DynamoDbLease(FencingToken.of(resource, candidate), owner, requestedAtNanos,
                            options.ttl()));
                }
                if (current.containsKey(OWNER) && current.containsKey(EXPIRES)) {
                    if (expiry == Expiry.SYNCHRONIZED_CLOCKS) {
                        if (longOf(resource, current, EXPIRES) >= now) {
                            return Optional.empty();
                        }
                    } else {
                        Sighting seen = sight(resource, current, options.ttl());
                        if (!seen.elapsed(clock().nanoTime())) {
                            return Optional.empty(); // held, or not yet seen unchanged for a whole lease
                        }
                        takeover = seen;
                    }
                }
                if (token == Long.MAX_VALUE) {
                    throw LockUnavailableException.unreachable(resource, "its tokens are exhausted: table '" + table
                            + "' holds the last token a long can hold (" + token + "); no larger one can be granted",
                            null);
                }
                // free, but its token is at or past this attempt's candidate — often one another client took
                // and freed in between from a later clock: go past it and past the clock now, or a waiter
                // that only steps past what it read lags the clock round after round
                candidate = Math.max(Math.max(candidate, token) + 1, TimeUnit.MILLISECONDS.toMicros(wallClock.millis()));
            } catch (DynamoDbException e) {
                if (e.isThrottlingException()) {
                    // the server answered "too busy": not granted now (an earlier send the SDK
                    // retried may have landed: given back all the same); a waiting acquire goes on
                    sendGiveBack(resource, owner);
                    return Optional.empty();
                }
                if (e.statusCode() >= 400 && e.statusCode() < 500) {
                    throw LockUnavailableException.unreachable(resource, "DynamoDB refused the grant on table '" + table
                            + "': " + e.awsErrorDetails().errorMessage(), e);
                }
                throw giveBack(resource, owner, e);
            } catch (SdkException e) {
                LockUnavailableException failed = giveBack(resource, owner, e);
                if (Thread.currentThread().isInterrupted()) {
                    return Optional.empty(); // given back; the caller sees its interrupt
                }
                if (answers.answered()) {
                    // the server answered this grant's sends (throttled, an error) and the SDK's retries
                    // ran out of time: a busy server, not a silent one; given back, a waiting acquire goes on
                    return Optional.empty();
                }
                throw failed;
            }
        }
        // others take the lock as fast as it frees: contended, not unreachable — the caller waits and tries again
        return Optional.empty();
    }

    /** The remembered sighting of {@code resource}'s holder if it has stayed unchanged for its whole lease. */
    private @Nullable Sighting elapsedSighting(String resource) {
        Sighting seen = sightings.get(resource);
        long now = clock().nanoTime();
        return seen != null && seen.recent(now) && seen.elapsed(now) ? seen : null;
    }

    /**
     * Remembers the held item {@code current} of {@code resource}: an item seen with the same
     * version at the last look, not longer ago than {@link Sighting#recent}, keeps the moment it was
     * first seen; another version, or one not looked at for longer (a restore may have brought it
     * back), starts counting now (after the reply that showed it, so after the holder's write).
     */
    private Sighting sight(String resource, Map<String, AttributeValue> current, Duration ttl) {
        @Nullable String version = stringOf(current, VERSION);
        String owner = Objects.requireNonNullElse(stringOf(current, OWNER), "");
        long expires = longOf(resource, current, EXPIRES);
        long leaseMillis = current.containsKey(LEASE) ? longOf(resource, current, LEASE) : ttl.toMillis();
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(Math.max(leaseMillis, 0), LeaseOptions.MAX_TTL.toMillis()));
        long seenAt = clock().nanoTime();
        Sighting now = new Sighting(version, owner, expires, seenAt, seenAt, leaseNanos);
        return sightings.merge(resource, now, (before, after) -> before.sameItem(after) && before.recent(seenAt)
                ? new Sighting(before.version, before.owner, before.expires, before.seenAtNanos, seenAt, before.leaseNanos)
                : after);
    }

    /** A lease's version: the grant's random owner id and how many renewals it had, so every write differs. */
    private static String versionOf(String owner, long renewals) {
        return owner + ":" + renewals;
    }

    /**
     * The grant may have landed and nobody will hold it: sends a write that removes the owner if it
     * is still this attempt's, and reports the failure without waiting for it (a silent server
     * would otherwise hold the caller a second request timeout). The write is owner-checked with
     * this attempt's random owner id, so whenever it lands it can only free this attempt's grant.
     */
    private LockUnavailableException giveBack(String resource, String owner, SdkException cause) {
        sendGiveBack(resource, owner);
        return LockUnavailableException.unreachable(resource, "DynamoDB table '" + table + "' did not answer the grant ("
                + cause.getClass().getSimpleName() + ": " + cause.getMessage() + "); whatever it granted is being given"
                + " back", cause);
    }

    /** Sends the owner-checked give-back of {@code owner}'s possible grant, without waiting for it. */
    private void sendGiveBack(String resource, String owner) {
        Runnable giveBack = () -> {
            try {
                client.updateItem(r -> r.tableName(table).key(key(resource))
                        .updateExpression("REMOVE #owner, #expires").conditionExpression("#owner = :owner")
                        .expressionAttributeNames(Map.of("#owner", OWNER, "#expires", EXPIRES))
                        .expressionAttributeValues(Map.of(":owner", AttributeValue.fromS(owner)))
                        .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
            } catch (SdkException | IllegalStateException e) {
                // not granted, unreachable, or the client closed: the TTL frees it
            }
        };
        try {
            giveBacks.execute(giveBack);
        } catch (RejectedExecutionException closed) {
            boolean interrupted = Thread.interrupted(); // the give-back must still go out
            try {
                giveBack.run();
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Override
    public Optional<LockState> inspect(String resource) {
        Checks.requireName("resource", resource);
        GetItemResponse response;
        try {
            response = client.getItem(r -> r.tableName(table).key(key(resource)).consistentRead(true)
                    .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
        } catch (SdkException e) {
            throw LockUnavailableException.unreachable(resource, "DynamoDB table '" + table + "' could not be read: "
                    + e.getMessage(), e);
        }
        Map<String, AttributeValue> item = response.hasItem() ? response.item() : Map.of();
        long remaining = longOf(resource, item, EXPIRES) - wallClock.millis();
        boolean held = item.containsKey(OWNER) && item.containsKey(EXPIRES) && remaining >= 0;
        OptionalLong lastToken = item.containsKey(TOKEN) ? OptionalLong.of(longOf(resource, item, TOKEN))
                : OptionalLong.empty();
        return Optional.of(new LockState(resource, held ? Optional.ofNullable(stringOf(item, OWNER)) : Optional.empty(),
                held ? Duration.ofMillis(remaining) : Duration.ZERO, lastToken));
    }

    @Override
    protected void doClose() {
        // the client is the caller's; give-backs already queued still go out, each within the request timeout
        giveBacks.shutdown();
        try {
            giveBacks.awaitTermination(requestTimeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The item that failed {@code refused}'s condition: the one the server returned with it
     * ({@code ALL_OLD}), or, from a server that returns none (dynalite, older emulators), a
     * consistent read right after.
     */
    private Map<String, AttributeValue> itemAfter(ConditionalCheckFailedException refused, String resource) {
        if (refused.hasItem() && !refused.item().isEmpty()) {
            return refused.item();
        }
        GetItemResponse read = client.getItem(r -> r.tableName(table).key(key(resource)).consistentRead(true)
                .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
        return read.hasItem() ? read.item() : Map.of();
    }

    /** DynamoDB's rule for table names: 3 to 255 of {@code A-Z a-z 0-9 _ . -}. */
    private static String requireTableName(String table) {
        Checks.requireName("table", table);
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be a DynamoDB table name, 3 to 255 characters of A-Z, a-z,"
                    + " 0-9, '_', '.' and '-', got '" + (table.length() > 64 ? table.substring(0, 64) + "…" : table)
                    + "' (" + table.length() + " characters)");
        }
        return table;
    }

    private static Map<String, AttributeValue> key(String resource) {
        return Map.of(KEY, AttributeValue.fromS(resource));
    }

    private static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    /**
     * The whole number in attribute {@code name}, 0 if the item has none; an attribute of another
     * type or out of a long's range (written by something other than this provider) is a named
     * failure: a condition comparing it with a number would never hold.
     */
    private long longOf(String resource, Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        if (value == null) {
            return 0;
        }
        if (value.n() != null) {
            try {
                return Long.parseLong(value.n());
            } catch (NumberFormatException e) {
                // a decimal, an exponent or past a long's range: refused below
            }
        }
        throw LockUnavailableException.unreachable(resource, "its item in table '" + table + "' has a '" + name
                + "' attribute that is not a whole number within a long's range (" + value + "); it was not written"
                + " by this provider: repair or remove the attribute", null);
    }

    private static @Nullable String stringOf(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null ? null : value.s();
    }

    /**
     * Whether the server answered any send of one grant attempt (a throttle, an error): a plugin
     * that adds an interceptor to the grant's requests only, so the SDK's own retries are seen.
     */
    private static final class AnswerWatch implements SdkPlugin, ExecutionInterceptor {

        private volatile boolean answered;

        @Override
        public void configureClient(SdkServiceClientConfiguration.Builder config) {
            config.overrideConfiguration(override -> override.addExecutionInterceptor(this));
        }

        @Override
        public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
            answered = true;
        }

        boolean answered() {
            return answered;
        }
    }

    /** A grant: renewed and released by owner and token, so a later grant of the same owner id cannot be touched. */
    private final class DynamoDbLease extends AbstractLease {

        /** Renewals sent so far (one at a time: the base class serialises them). */
        private long renewals;

        DynamoDbLease(FencingToken token, String owner, long requestedAtNanos, Duration ttl) {
            super(token, owner, requestedAtNanos, ttl, clock(), listener());
        }

        @Override
        protected boolean doRenew(Duration ttl) {
            if (expiry == Expiry.OWN_CLOCK && pastDeadline()) {
                // a waiter may be counting its last version out: not brought back, and freed now
                sendGiveBack(resource(), ownerId());
                return false;
            }
            long now = wallClock.millis();
            Map<String, AttributeValue> values = new HashMap<>(Map.of(":owner", AttributeValue.fromS(ownerId()),
                    ":token", number(token().value()), ":expires", number(now + ttl.toMillis()),
                    ":version", AttributeValue.fromS(versionOf(ownerId(), ++renewals)), ":lease", number(ttl.toMillis())));
            String condition = "#owner = :owner AND #token = :token";
            if (expiry == Expiry.SYNCHRONIZED_CLOCKS) {
                // not past its own expiry: a lease whose TTL ran out is lost even if nobody took the lock
                condition += " AND #expires >= :now";
                values.put(":now", number(now));
            }
            String checked = condition;
            try {
                client.updateItem(r -> r.tableName(table).key(key(resource()))
                        .updateExpression("SET #expires = :expires, #version = :version, #lease = :lease")
                        .conditionExpression(checked)
                        .expressionAttributeNames(Map.of("#owner", OWNER, "#expires", EXPIRES, "#token", TOKEN,
                                "#version", VERSION, "#lease", LEASE))
                        .expressionAttributeValues(values)
                        .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
                return true;
            } catch (ConditionalCheckFailedException taken) {
                return false;
            }
        }

        /**
         * Removes the owner if the lease is still this one and not past its expiry, and records
         * its token as the last released. A re-sent release (the first send's reply lost) that
         * finds that record knows the first send landed, even if a waiter took the lock in between;
         * a lease past its expiry is reported lost (and its owner still removed, so nobody waits
         * for it).
         */
        @Override
        protected boolean doRelease() {
            if (expiry == Expiry.OWN_CLOCK && pastDeadline()) {
                sendGiveBack(resource(), ownerId()); // ran out on this holder's clock: lost, and freed now
                return false;
            }
            long now = wallClock.millis();
            Map<String, AttributeValue> values = new HashMap<>(Map.of(":owner", AttributeValue.fromS(ownerId()),
                    ":token", number(token().value())));
            String condition = "#owner = :owner AND #token = :token";
            if (expiry == Expiry.SYNCHRONIZED_CLOCKS) {
                condition += " AND #expires >= :now";
                values.put(":now", number(now));
            }
            String checked = condition;
            try {
                client.updateItem(r -> r.tableName(table).key(key(resource()))
                        .updateExpression("SET #released = :token REMOVE #owner, #expires")
                        .conditionExpression(checked)
                        .expressionAttributeNames(Map.of("#owner", OWNER, "#expires", EXPIRES, "#token", TOKEN,
                                "#released", RELEASED))
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                        .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
                return true;
            } catch (ConditionalCheckFailedException refused) {
                Map<String, AttributeValue> current = itemAfter(refused, resource());
                if (longOf(resource(), current, RELEASED) == token().value()) {
                    return true; // a re-send: the first send released this lease (no other release writes its token)
                }
                if (ownerId().equals(stringOf(current, OWNER)) && longOf(resource(), current, TOKEN) == token().value()) {
                    sendGiveBack(resource(), ownerId()); // expired, not taken: free it now, and report the loss
                }
                return false;
            }
        }
    }

    /**
     * How a waiter decides that a held lock's lease ran out. DynamoDB has no server clock usable in
     * a condition, so one of the clients' clocks decides.
     */
    public enum Expiry {
        /**
         * The default, as amazon-dynamodb-lock-client does: a waiter takes a held lock only after it
         * has seen the same version of the item (changed by every grant and renewal) for the whole
         * lease, counted on its own monotonic clock from the reply that showed it. The holder's
         * lease ends on its own monotonic clock, counted from before its last write, so the holder's
         * lease is over before the waiter takes the lock whatever the clients' wall clocks say
         * (only their rates must agree). The cost: a lock whose holder died is taken a whole lease
         * after a waiter first looks, up to two TTLs after the holder's last renewal.
         */
        OWN_CLOCK,
        /**
         * A waiter takes a held lock once the holder's written expiry ({@code its clock + TTL}) is
         * before the waiter's wall clock: taken as soon as the lease ends, but a waiter whose clock
         * runs ahead by {@code d} takes it up to {@code d} early (two holders for up to {@code d};
         * fenced stores refuse the earlier one). For clients on synchronized clocks only.
         */
        SYNCHRONIZED_CLOCKS
    }

    /**
     * A held item as a waiter saw it: its version (or, for an item written without one, its owner
     * and expiry), when it was first and last seen, and the lease it announced.
     */
    private record Sighting(@Nullable String version, String owner, long expires, long seenAtNanos, long lastSeenAtNanos,
            long leaseNanos) {

        /** The longest gap between two looks that keeps the count: a lease, and at least a second. */
        private static final long MIN_GAP_NANOS = TimeUnit.SECONDS.toNanos(1);

        boolean recent(long nowNanos) {
            return nowNanos - lastSeenAtNanos - Math.max(leaseNanos, MIN_GAP_NANOS) <= 0;
        }

        boolean sameItem(Sighting other) {
            return version != null ? version.equals(other.version)
                    : other.version == null && owner.equals(other.owner) && expires == other.expires;
        }

        boolean elapsed(long nowNanos) {
            return nowNanos - seenAtNanos - leaseNanos >= 0;
        }

        /** The grant's condition that the item is still this one, adding its values to {@code values}. */
        String condition(Map<String, AttributeValue> values) {
            if (version != null) {
                values.put(":seenVersion", AttributeValue.fromS(version));
                return "#version = :seenVersion";
            }
            values.put(":seenOwner", AttributeValue.fromS(owner));
            values.put(":seenExpires", number(expires));
            return "(attribute_not_exists(#version) AND #owner = :seenOwner AND #expires = :seenExpires)";
        }
    }

    /** Settings of a {@link DynamoDbLockProvider}; the listener, clocks and watchdog as for every provider. */
    public static final class Builder extends ProviderBuilder<Builder> {

        private final DynamoDbClient client;
        private String table = DEFAULT_TABLE;
        private Clock wallClock = Clock.systemUTC();
        private Duration requestTimeout = Duration.ofSeconds(5);
        private Expiry expiry = Expiry.OWN_CLOCK;

        private Builder(DynamoDbClient client) {
            this.client = client;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The lock table (default {@value DynamoDbLockProvider#DEFAULT_TABLE}); see {@link #createTable}. */
        public Builder table(String table) {
            this.table = requireTableName(table);
            return this;
        }

        /**
         * The wall clock whose microseconds floor the tokens and that writes the items' {@code expires}
         * (default the system's UTC clock); it judges expiry only with {@link Expiry#SYNCHRONIZED_CLOCKS}.
         */
        public Builder wallClock(Clock wallClock) {
            this.wallClock = Checks.requireNonNull("wallClock", wallClock);
            return this;
        }

        /** The bound of every request, retries included: 10 ms to 1 min, default 5 s. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = Checks.requireBetween("requestTimeout", requestTimeout, Duration.ofMillis(10),
                    Duration.ofMinutes(1));
            return this;
        }

        /**
         * How waiters judge that a held lock's lease ran out: {@link Expiry#OWN_CLOCK} (the default,
         * no clock synchronisation needed) or {@link Expiry#SYNCHRONIZED_CLOCKS} (faster takeover
         * after a crash, overlap up to the clocks' skew). Every client of a table should use the same.
         */
        public Builder expiry(Expiry expiry) {
            this.expiry = Checks.requireNonNull("expiry", expiry);
            return this;
        }

        /** The provider; the table must exist ({@link #createTable}). */
        public DynamoDbLockProvider build() {
            return new DynamoDbLockProvider(this);
        }
    }
}
