// Over 500 lines: every operation reads and writes one item layout, kept in one place; Builder, Expiry are API.
package dev.fencing.dynamodb.lock;

import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseLostException;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.SdkServiceClientConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * A lock on one DynamoDB table: one item per resource, taken by one conditional write that also
 * raises the item's token. For teams on AWS with DynamoDB and no Redis, etcd or ZooKeeper.
 *
 * <p>The grant writes {@code token = max(previous token + 1, the acquirer's clock in µs)} under the
 * condition {@code token < :new} in the same {@code UpdateItem} that takes the lock, and the item is
 * never deleted by a release: tokens of one resource are strictly increasing whatever the clocks
 * do, and durable. Expiry needs no synchronized clocks by default ({@link Expiry#OWN_CLOCK}): a
 * waiter takes a held lock only after seeing the same version for a whole lease on its own
 * monotonic clock.
 *
 * <p>What can go wrong: with {@link Expiry#SYNCHRONIZED_CLOCKS} a waiter whose clock runs ahead by
 * {@code d} takes the lock up to {@code d} early, but its larger token makes every fenced store
 * refuse the earlier holder; a point-in-time restore of the table brings old counters back, and the
 * clock floor keeps tokens ahead only while no token granted since ran ahead of the clocks.
 *
 * <p>Every request is bounded by {@link Builder#requestTimeout}. Thread-safe; close it to stop its
 * renewals (the client is the caller's to close). Expiry, restores, unclear replies and the item
 * layout are in {@code docs/dynamodb-lock.md}.
 */
public final class DynamoDbLockProvider extends AbstractLockProvider {

    /** The default table, created by {@link #createTable(DynamoDbClient, String)}. */
    public static final String DEFAULT_TABLE = "fencing_locks";
    /** The default partition key attribute, which holds the resource name. */
    public static final String DEFAULT_PARTITION_KEY = "resource";

    static final String KEY = DEFAULT_PARTITION_KEY;
    static final String OWNER = "owner";
    static final String EXPIRES = "expires_ms";
    static final String TOKEN = "token";
    /** The token of the last release: a re-sent release that finds it knows its first send landed. */
    static final String RELEASED = "released_token";
    /** Changed by every grant and renewal: a waiter counts a lease from the moment it saw the version. */
    static final String VERSION = "version";
    /** The TTL of the last grant or renewal, in milliseconds: how long a waiter watches a version unchanged. */
    static final String LEASE = "lease_ms";
    /** The holder's readable name ({@link Builder#ownerName}). */
    static final String OWNER_NAME = "owner_name";
    /** The data stored with the lock ({@link DynamoDbLease#data()}). */
    static final String DATA = "data";

    private static final int MAX_TOKEN_RACES = 8;
    private static final int GIVE_BACK_THREADS = 4;
    private static final Duration MIN_IDLE = Duration.ofMinutes(1);
    /** How many unreleased leases are kept for {@link Builder#releaseOnClose} before the expired ones are dropped. */
    private static final int MAX_UNRELEASED = 1_000;
    private static final Duration MAX_IDLE = Duration.ofDays(3650);

    final DynamoDbClient client;
    final LockTable table;
    final Clock wallClock;
    final Duration requestTimeout;
    final Expiry expiry;
    private final String ownerName;
    private final boolean releaseOnClose;
    private final boolean onlyExistingLocks;
    private final Sightings sightings = new Sightings();
    /** The leases not yet released, for {@link Builder#releaseOnClose}. */
    final Set<DynamoDbLeaseImpl> unreleased = ConcurrentHashMap.newKeySet();
    /** The data a grant on this thread stores with the lock: set around the overloads that take data. */
    private final ThreadLocal<byte @Nullable []> grantData = new ThreadLocal<>();
    /** Sends the give-backs of unclear grants, so that a silent server fails a call within one request timeout. */
    private final ThreadPoolExecutor giveBacks;

    private DynamoDbLockProvider(Builder builder) {
        super(builder, "fencing-dynamodb-lock-async");
        this.client = builder.client;
        this.table = new LockTable(builder.table, builder.partitionKey, builder.sortKey, builder.sortValue);
        this.wallClock = builder.wallClock;
        this.requestTimeout = builder.requestTimeout;
        this.expiry = builder.expiry;
        this.ownerName = builder.ownerName;
        this.releaseOnClose = builder.releaseOnClose;
        this.onlyExistingLocks = builder.onlyExistingLocks;
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
     * Creates {@code table} (string partition key {@value #DEFAULT_PARTITION_KEY}, on-demand billing)
     * unless it exists, and waits until it is active. Needs {@code dynamodb:CreateTable} and
     * {@code dynamodb:DescribeTable}. For other keys, {@link #createTable()} on a provider built
     * with them.
     *
     * @throws IllegalStateException if the table exists with another key schema (nothing is changed)
     */
    public static void createTable(DynamoDbClient client, String table) {
        Checks.requireNonNull("client", client);
        new LockTable(LockTable.requireTableName(table), DEFAULT_PARTITION_KEY, null, null).create(client);
    }

    /**
     * Creates this provider's table with its keys ({@link Builder#partitionKey},
     * {@link Builder#sortKey}) unless it exists, and waits until it is active.
     *
     * @throws IllegalStateException if the table exists with other keys (nothing is changed)
     */
    public void createTable() {
        table.create(client);
    }

    /** {@link #tryAcquire(String, LeaseOptions)}, storing {@code data} with the lock in the grant's write. */
    public Optional<DynamoDbLease> tryAcquire(String resource, LeaseOptions options, byte[] data) {
        grantData.set(requireData(data));
        try {
            return tryAcquire(resource, options).map(DynamoDbLease.class::cast);
        } finally {
            grantData.remove();
        }
    }

    /** {@link #acquire(String, LeaseOptions)}, storing {@code data} with the lock in the grant's write. */
    public DynamoDbLease acquire(String resource, LeaseOptions options, byte[] data) throws InterruptedException {
        grantData.set(requireData(data));
        try {
            return (DynamoDbLease) acquire(resource, options);
        } finally {
            grantData.remove();
        }
    }

    @Override
    protected Optional<AbstractLease> attempt(String resource, LeaseOptions options, long requestedAtNanos) {
        String owner = OwnerIds.random();
        byte @Nullable [] data = grantData.get();
        long now = wallClock.millis();
        long candidate = Math.max(1, TimeUnit.MILLISECONDS.toMicros(now));
        AnswerWatch answers = new AnswerWatch();
        Sightings.@Nullable Sighting takeover = expiry == Expiry.OWN_CLOCK
                ? sightings.elapsed(resource, clock().nanoTime()) : null;
        for (int race = 0; race < MAX_TOKEN_RACES; race++) {
            Map<String, String> names = new HashMap<>(Map.of("#owner", OWNER, "#expires", EXPIRES, "#token", TOKEN,
                    "#version", VERSION, "#lease", LEASE, "#ownerName", OWNER_NAME));
            Map<String, AttributeValue> values = new HashMap<>();
            values.put(":owner", AttributeValue.fromS(owner));
            values.put(":expires", number(now + options.ttl().toMillis()));
            values.put(":token", number(candidate));
            values.put(":version", AttributeValue.fromS(versionOf(owner, 0)));
            values.put(":lease", number(options.ttl().toMillis()));
            values.put(":ownerName", AttributeValue.fromS(ownerName));
            String update = "SET #owner = :owner, #expires = :expires, #token = :token, #version = :version,"
                    + " #lease = :lease, #ownerName = :ownerName";
            if (data != null) {
                names.put("#data", DATA);
                values.put(":data", AttributeValue.fromB(SdkBytes.fromByteArray(data)));
                update += ", #data = :data";
            }
            String taken;
            if (expiry == Expiry.SYNCHRONIZED_CLOCKS) {
                values.put(":now", number(now));
                taken = " OR #expires < :now";
            } else {
                taken = takeover == null ? "" : " OR " + takeover.condition(values);
            }
            String condition;
            if (race == 0 && takeover == null) {
                // the common case, a free lock used before, in the condition cheapest to evaluate (no
                // OR: dynalite takes 1.7 times as long over the general one); a new name or anything
                // else fails it, and the next round knows the item
                condition = "attribute_not_exists(#owner) AND #token < :token";
                values.remove(":now");
            } else {
                condition = "(attribute_not_exists(#owner) OR attribute_not_exists(#expires)" + taken + ")"
                        + (onlyExistingLocks ? " AND attribute_exists(#token) AND #token < :token"
                                : " AND (attribute_not_exists(#token) OR #token < :token)");
            }
            UpdateItemRequest grant = UpdateItemRequest.builder().tableName(table.name).key(table.key(resource))
                    .updateExpression(update)
                    .conditionExpression(condition)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout).addPlugin(answers)).build();
            try {
                client.updateItem(grant);
                return Optional.of(granted(resource, candidate, owner, requestedAtNanos, options));
            } catch (ConditionalCheckFailedException refused) {
                Map<String, AttributeValue> current;
                try {
                    current = itemAfter(refused, resource);
                } catch (SdkException e) {
                    if (e instanceof DynamoDbException busy && busy.isThrottlingException()) {
                        sendGiveBack(resource, owner, candidate);
                        return Optional.empty(); // the re-read was throttled: try again after the backoff
                    }
                    LockUnavailableException failed = giveBack(resource, owner, candidate, e);
                    if (Thread.currentThread().isInterrupted()) {
                        return Optional.empty(); // as for an interrupt in the grant: the caller sees it
                    }
                    throw failed;
                }
                long token = longOf(resource, current, TOKEN);
                if (owner.equals(stringOf(current, OWNER)) && token == candidate) {
                    // the SDK re-sent a grant whose reply was lost: the lock is this attempt's
                    return Optional.of(granted(resource, candidate, owner, requestedAtNanos, options));
                }
                if (onlyExistingLocks && !current.containsKey(TOKEN)) {
                    return Optional.empty(); // no lock item: not granted (Builder.onlyExistingLocks)
                }
                if (current.containsKey(OWNER) && current.containsKey(EXPIRES)) {
                    if (expiry == Expiry.SYNCHRONIZED_CLOCKS) {
                        if (longOf(resource, current, EXPIRES) >= now) {
                            return Optional.empty();
                        }
                    } else {
                        if (!current.containsKey(LEASE)) {
                            // written without the lease's length (by another tool, or before it was
                            // written): judged by its written expiry against this client's clock
                            long expires = longOf(resource, current, EXPIRES);
                            if (expires >= now) {
                                return Optional.empty();
                            }
                            takeover = new Sightings.Sighting(stringOf(current, VERSION),
                                    Objects.requireNonNullElse(stringOf(current, OWNER), ""), expires, 0, 0, 0);
                        } else {
                            Sightings.Sighting seen = sight(resource, current, options.ttl());
                            if (!seen.elapsed(clock().nanoTime())) {
                                return Optional.empty(); // held, or not yet seen unchanged for a whole lease
                            }
                            takeover = seen;
                        }
                    }
                }
                if (token == Long.MAX_VALUE) {
                    throw LockUnavailableException.unreachable(resource, "its tokens are exhausted: table '" + table.name
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
                    sendGiveBack(resource, owner, candidate);
                    return Optional.empty();
                }
                if (e.statusCode() >= 400 && e.statusCode() < 500) {
                    throw LockUnavailableException.unreachable(resource, "DynamoDB refused the grant on table '"
                            + table.name + "' (" + table.describeKeys() + "): " + e.awsErrorDetails().errorMessage(), e);
                }
                throw giveBack(resource, owner, candidate, e);
            } catch (SdkException e) {
                LockUnavailableException failed = giveBack(resource, owner, candidate, e);
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

    private DynamoDbLeaseImpl granted(String resource, long token, String owner, long requestedAtNanos,
            LeaseOptions options) {
        sightings.forget(resource);
        DynamoDbLeaseImpl lease = new DynamoDbLeaseImpl(this, clock(), listener(), FencingToken.of(resource, token), owner,
                requestedAtNanos, options.ttl());
        if (unreleased.size() >= MAX_UNRELEASED) {
            unreleased.removeIf(left -> !left.isValid()); // leases left to lapse: nothing to hand on at close
        }
        unreleased.add(lease);
        return lease;
    }

    /** Records a look at {@code resource}'s held item {@code current}: see {@link Sightings}. */
    private Sightings.Sighting sight(String resource, Map<String, AttributeValue> current, Duration ttl) {
        long leaseMillis = current.containsKey(LEASE) ? longOf(resource, current, LEASE) : ttl.toMillis();
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(Math.max(leaseMillis, 0), LeaseOptions.MAX_TTL.toMillis()));
        long seenAt = clock().nanoTime();
        return sightings.sight(resource, new Sightings.Sighting(stringOf(current, VERSION),
                Objects.requireNonNullElse(stringOf(current, OWNER), ""), longOf(resource, current, EXPIRES), seenAt,
                seenAt, leaseNanos));
    }

    /** A lease's version: the grant's random owner id and how many renewals it had, so every write differs. */
    static String versionOf(String owner, long renewals) {
        return owner + ":" + renewals;
    }

    /**
     * The grant may have landed and nobody will hold it: sends the give-back ({@link #sendGiveBack})
     * and reports the failure without waiting for it (a silent server would otherwise hold the
     * caller a second request timeout).
     */
    private LockUnavailableException giveBack(String resource, String owner, long candidate, SdkException cause) {
        sendGiveBack(resource, owner, candidate);
        return LockUnavailableException.unreachable(resource, "DynamoDB table '" + table.name + "' did not answer the"
                + " grant (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + "); whatever it granted is"
                + " being given back", cause);
    }

    /**
     * Gives back what an attempt may have been granted, without waiting: removes the owner if it is
     * still {@code owner} (a random id of this attempt, so whenever it lands it frees only this
     * attempt's grant); if the grant has not landed, raises a free lock's token to the attempt's
     * {@code candidate}, so that the grant, should it still arrive (delayed in the network), fails
     * its {@code token < candidate} condition instead of holding the lock for nobody. A grant that
     * lands between the two is seen and given back.
     */
    void sendGiveBack(String resource, String owner, long candidate) {
        Runnable giveBack = giveBackTask(resource, owner, candidate);
        try {
            giveBacks.execute(giveBack);
        } catch (RejectedExecutionException closed) {
            giveBackNow(giveBack);
        }
    }

    /**
     * Gives back as {@link #sendGiveBack} does, on the caller's thread: a release that finds its
     * lease ran out returns with the lock freed (or the server unreachable and the TTL freeing it).
     */
    void giveBackNow(String resource, String owner, long candidate) {
        giveBackNow(giveBackTask(resource, owner, candidate));
    }

    private static void giveBackNow(Runnable giveBack) {
        boolean interrupted = Thread.interrupted(); // the give-back must still go out
        try {
            giveBack.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Runnable giveBackTask(String resource, String owner, long candidate) {
        return () -> {
            try {
                for (int round = 0; round < 3; round++) {
                    try {
                        client.updateItem(r -> r.tableName(table.name).key(table.key(resource))
                                .updateExpression("REMOVE #owner, #expires").conditionExpression("#owner = :owner")
                                .expressionAttributeNames(Map.of("#owner", OWNER, "#expires", EXPIRES))
                                .expressionAttributeValues(Map.of(":owner", AttributeValue.fromS(owner)))
                                .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
                        return;
                    } catch (ConditionalCheckFailedException notGranted) {
                        // not this attempt's (yet): void the grant in case it is still on its way
                    }
                    try {
                        client.updateItem(r -> r.tableName(table.name).key(table.key(resource))
                                // with a version, as a grant leaves it, so that prune can delete it once idle
                                .updateExpression("SET #token = :candidate, #version = :version")
                                .conditionExpression("attribute_not_exists(#owner) AND (attribute_not_exists(#token)"
                                        + " OR #token < :candidate)")
                                .expressionAttributeNames(Map.of("#owner", OWNER, "#token", TOKEN, "#version", VERSION))
                                .expressionAttributeValues(Map.of(":candidate", number(candidate),
                                        ":version", AttributeValue.fromS(owner + ":given-back")))
                                .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
                        return;
                    } catch (ConditionalCheckFailedException heldOrPast) {
                        Map<String, AttributeValue> item = read(resource);
                        if (!owner.equals(stringOf(item, OWNER))) {
                            return; // another holder, or a token at or past the candidate: nothing late can land
                        }
                        // the grant landed in between: give it back in the next round
                    }
                }
            } catch (SdkException | LockUnavailableException | IllegalStateException e) {
                // unreachable, or the client closed: the TTL frees it
            }
        };
    }

    @Override
    public Optional<LockState> inspect(String resource) {
        Checks.requireName("resource", resource);
        Map<String, AttributeValue> item = read(resource);
        long remaining = longOf(resource, item, EXPIRES) - wallClock.millis();
        boolean held = item.containsKey(OWNER) && item.containsKey(EXPIRES) && remaining >= 0;
        OptionalLong lastToken = item.containsKey(TOKEN) ? OptionalLong.of(longOf(resource, item, TOKEN))
                : OptionalLong.empty();
        return Optional.of(new LockState(resource, held ? Optional.ofNullable(stringOf(item, OWNER)) : Optional.empty(),
                held ? Duration.ofMillis(remaining) : Duration.ZERO, lastToken));
    }

    /**
     * {@code resource}'s lock as its item shows it now (a consistent read, amazon-dynamodb-lock-client's
     * {@code getLock}): its holder's owner id and name, time left by this client's wall clock, and
     * token; empty if nobody holds it.
     *
     * @throws LockUnavailableException if the table cannot be read
     */
    public Optional<HeldLock> findHeldLock(String resource) {
        Checks.requireName("resource", resource);
        Map<String, AttributeValue> item = read(resource);
        long remaining = longOf(resource, item, EXPIRES) - wallClock.millis();
        if (!item.containsKey(OWNER) || !item.containsKey(EXPIRES) || remaining < 0) {
            return Optional.empty();
        }
        return Optional.of(new HeldLock(resource, Objects.requireNonNullElse(stringOf(item, OWNER), ""),
                Objects.requireNonNullElse(stringOf(item, OWNER_NAME), ""), Duration.ofMillis(remaining),
                longOf(resource, item, TOKEN)));
    }

    /**
     * The data stored with {@code resource}'s lock, held or not (a consistent read, without
     * acquiring it): set by its holder's grant, renewal or release; empty if there is none.
     *
     * @throws LockUnavailableException if the table cannot be read
     */
    public Optional<byte[]> readData(String resource) {
        Checks.requireName("resource", resource);
        AttributeValue data = read(resource).get(DATA);
        return data == null || data.b() == null ? Optional.empty() : Optional.of(data.b().asByteArray());
    }

    /**
     * The locks held now, read with a consistent {@code Scan} of the table (amazon-dynamodb-lock-client's
     * {@code getAllLocksFromDynamoDB}): items with an owner whose written expiry is not past this
     * client's wall clock. Needs {@code dynamodb:Scan}; reads the whole table, so it costs what
     * the table holds — for operators and tools, not for a hot path.
     *
     * @throws SdkException if the table cannot be scanned (each page bounded by the request timeout)
     */
    public List<HeldLock> listHeldLocks() {
        Map<String, String> names = new HashMap<>(Map.of("#owner", OWNER, "#version", VERSION));
        Map<String, AttributeValue> values = new HashMap<>();
        // every grant writes a version: an item without one is not a lock (a table shared by partition key)
        String filter = "attribute_exists(#owner) AND attribute_exists(#version)" + sortKeyFilter(names, values);
        List<HeldLock> held = new ArrayList<>();
        long now = wallClock.millis();
        for (Map<String, AttributeValue> item : scan(filter, names, values)) {
            String resource = Objects.requireNonNullElse(stringOf(item, table.partitionKey), "");
            long remaining = longOf(resource, item, EXPIRES) - now;
            if (item.containsKey(EXPIRES) && remaining >= 0) {
                held.add(new HeldLock(resource, Objects.requireNonNullElse(stringOf(item, OWNER), ""),
                        Objects.requireNonNullElse(stringOf(item, OWNER_NAME), ""), Duration.ofMillis(remaining),
                        longOf(resource, item, TOKEN)));
            }
        }
        held.sort(Comparator.comparing(HeldLock::resource));
        return held;
    }

    /**
     * Deletes the items of locks nobody holds whose token is older than {@code idleFor} by this
     * client's clock, so a table used for many short-lived names does not grow for good; returns how
     * many it deleted. Each delete is conditional on the item still having no owner and the token it
     * read, so a grant in between keeps its item.
     *
     * <p>Why it is safe: tokens are at least the granting client's clock in microseconds, so the
     * next grant on a deleted item's name starts from that clock and is still larger than the
     * deleted token, as long as no client's clock is behind this one's by {@code idleFor} or more
     * (and no token ran ahead of the clocks: a token above {@code now - idleFor} is never deleted,
     * whatever its age). Give it hours, not minutes. Needs {@code dynamodb:Scan} and
     * {@code dynamodb:DeleteItem}. With {@link Builder#onlyExistingLocks} a pruned lock no longer
     * exists.
     *
     * @param idleFor how far behind this client's clock a token must be: 1 minute to 3,650 days
     * @throws IllegalArgumentException for an {@code idleFor} out of range (nothing is deleted)
     * @throws SdkException if the table cannot be scanned or an item deleted (each request bounded by
     *     the request timeout; items deleted before it stay deleted)
     */
    public int prune(Duration idleFor) {
        Checks.requireBetween("idleFor", idleFor, MIN_IDLE, MAX_IDLE);
        long floor = TimeUnit.MILLISECONDS.toMicros(wallClock.millis() - idleFor.toMillis());
        Map<String, String> names = new HashMap<>(Map.of("#owner", OWNER, "#token", TOKEN, "#version", VERSION));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":floor", number(floor)));
        // every grant writes a version: an item without one was never a lock, and is left alone
        String filter = "attribute_not_exists(#owner) AND #token < :floor AND attribute_exists(#version)"
                + sortKeyFilter(names, values);
        int deleted = 0;
        for (Map<String, AttributeValue> item : scan(filter, names, values)) {
            String resource = stringOf(item, table.partitionKey);
            if (resource != null && item.containsKey(TOKEN) && deleteIdle(resource, longOf(resource, item, TOKEN), floor)) {
                deleted++;
            }
        }
        return deleted;
    }

    /** Deletes {@code resource}'s item if it still has no owner and still {@code token}, below {@code floor}. */
    boolean deleteIdle(String resource, long token, long floor) {
        if (token >= floor) {
            return false;
        }
        try {
            client.deleteItem(r -> r.tableName(table.name).key(table.key(resource))
                    .conditionExpression("attribute_not_exists(#owner) AND #token = :token AND attribute_exists(#version)")
                    .expressionAttributeNames(Map.of("#owner", OWNER, "#token", TOKEN, "#version", VERSION))
                    .expressionAttributeValues(Map.of(":token", number(token)))
                    .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
            return true;
        } catch (ConditionalCheckFailedException granted) {
            return false; // granted (or changed) since the scan: kept
        }
    }

    /** With a sort key, the filter clause that keeps the lock items only (other items share the table). */
    private String sortKeyFilter(Map<String, String> names, Map<String, AttributeValue> values) {
        if (table.sortKey == null) {
            return "";
        }
        names.put("#sort", table.sortKey);
        values.put(":sort", AttributeValue.fromS(table.sortValue));
        return " AND #sort = :sort";
    }

    /** The items matching {@code filter}, every page of a consistent scan, each page bounded by the request timeout. */
    private List<Map<String, AttributeValue>> scan(String filter, Map<String, String> names,
            Map<String, AttributeValue> values) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        for (ScanResponse page : client.scanPaginator(r -> r.tableName(table.name).consistentRead(true)
                .filterExpression(filter).expressionAttributeNames(names)
                .expressionAttributeValues(values.isEmpty() ? null : values)
                .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)))) {
            items.addAll(page.items());
        }
        return items;
    }

    /** {@code resource}'s item, read consistently; empty if there is none. */
    Map<String, AttributeValue> read(String resource) {
        GetItemResponse response;
        try {
            response = client.getItem(r -> r.tableName(table.name).key(table.key(resource)).consistentRead(true)
                    .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
        } catch (SdkException e) {
            throw LockUnavailableException.unreachable(resource, "DynamoDB table '" + table.name + "' could not be read: "
                    + e.getMessage(), e);
        }
        return response.hasItem() ? response.item() : Map.of();
    }

    /**
     * Releases the leases not released yet if {@link Builder#releaseOnClose} (the default), so the
     * next instance does not wait out their TTL — until one release gets no answer: the rest then
     * lapse on their TTL, so a silent server holds close() about one request timeout; then waits for
     * the give-backs still going out.
     */
    @Override
    protected void doClose() {
        if (releaseOnClose) {
            for (DynamoDbLeaseImpl lease : List.copyOf(unreleased)) {
                try {
                    lease.release();
                } catch (LeaseLostException | IllegalStateException releasedOrLost) {
                    // released meanwhile, or lost (the listener heard it)
                } catch (RuntimeException unanswered) {
                    // the server did not answer: the rest lapse on their TTL, so close() takes one
                    // request timeout, not one per lease
                    break;
                }
            }
        }
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
    Map<String, AttributeValue> itemAfter(ConditionalCheckFailedException refused, String resource) {
        if (refused.hasItem() && !refused.item().isEmpty()) {
            return refused.item();
        }
        GetItemResponse read = client.getItem(r -> r.tableName(table.name).key(table.key(resource)).consistentRead(true)
                .overrideConfiguration(c -> c.apiCallTimeout(requestTimeout)));
        return read.hasItem() ? read.item() : Map.of();
    }

    static byte[] requireData(byte[] data) {
        Checks.requireNonNull("data", data);
        if (data.length > DynamoDbLease.MAX_DATA_BYTES) {
            throw new IllegalArgumentException("data must be at most " + DynamoDbLease.MAX_DATA_BYTES + " bytes, got "
                    + data.length + " bytes");
        }
        return data.clone();
    }

    static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    /**
     * The whole number in attribute {@code name}, 0 if the item has none; an attribute of another
     * type or out of a long's range (written by something other than this provider) is a named
     * failure: a condition comparing it with a number would never hold.
     */
    long longOf(String resource, Map<String, AttributeValue> item, String name) {
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
        throw LockUnavailableException.unreachable(resource, "its item in table '" + table.name + "' has a '" + name
                + "' attribute that is not a whole number within a long's range (" + value + "); it was not written"
                + " by this provider: repair or remove the attribute", null);
    }

    static @Nullable String stringOf(Map<String, AttributeValue> item, String name) {
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
         * after a waiter first looks, up to two TTLs after the holder's last renewal, and only by a
         * waiter that keeps looking (see {@link Sightings}).
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

    /** Settings of a {@link DynamoDbLockProvider}; the listener, clocks and watchdog as for every provider. */
    public static final class Builder extends ProviderBuilder<Builder> {

        private final DynamoDbClient client;
        private String table = DEFAULT_TABLE;
        private String partitionKey = DEFAULT_PARTITION_KEY;
        private @Nullable String sortKey;
        private @Nullable String sortValue;
        private Clock wallClock = Clock.systemUTC();
        private Duration requestTimeout = Duration.ofSeconds(5);
        private Expiry expiry = Expiry.OWN_CLOCK;
        private String ownerName = defaultOwnerName();
        private boolean releaseOnClose = true;
        private boolean onlyExistingLocks;

        private Builder(DynamoDbClient client) {
            this.client = client;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The lock table (default {@value DynamoDbLockProvider#DEFAULT_TABLE}); see {@link DynamoDbLockProvider#createTable()}. */
        public Builder table(String table) {
            this.table = LockTable.requireTableName(table);
            return this;
        }

        /**
         * The string partition key attribute that holds the resource name (default
         * {@value DynamoDbLockProvider#DEFAULT_PARTITION_KEY}; amazon-dynamodb-lock-client's
         * {@code withPartitionKeyName}); it may not be one of the lock's own attributes.
         */
        public Builder partitionKey(String attribute) {
            this.partitionKey = LockTable.requireKeyName("partitionKey", attribute);
            return this;
        }

        /**
         * A string sort key and the value this provider's lock items carry in it, for a table shared
         * with other items (amazon-dynamodb-lock-client's {@code withSortKeyName}): the lock on
         * {@code r} is the item {@code (r, value)}, beside the table's other items of partition
         * {@code r}. Listing and pruning touch only items with this value.
         */
        public Builder sortKey(String attribute, String value) {
            this.sortKey = LockTable.requireKeyName("sortKey", attribute);
            this.sortValue = Checks.requireName("sortKey value", value);
            return this;
        }

        /**
         * The clock whose microseconds floor the tokens and that writes the items' {@code expires}
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

        /**
         * A readable name of this client written on every item it takes, for operators
         * ({@link HeldLock#ownerName}, the table in the console); default the host name and the
         * process id, as amazon-dynamodb-lock-client's {@code withOwnerName}. Exclusion never
         * depends on it: each grant has its own random owner id.
         */
        public Builder ownerName(String ownerName) {
            this.ownerName = Checks.requireName("ownerName", ownerName);
            return this;
        }

        /**
         * Whether {@link DynamoDbLockProvider#close()} releases the leases not released yet
         * (default true, as amazon-dynamodb-lock-client's {@code close}), so the next instance
         * takes them at once; false lets them lapse on their TTL.
         */
        public Builder releaseOnClose(boolean releaseOnClose) {
            this.releaseOnClose = releaseOnClose;
            return this;
        }

        /**
         * Grants only locks whose item exists already (created by an earlier grant of a provider
         * without this setting; amazon-dynamodb-lock-client's {@code withAcquireOnlyIfLockAlreadyExists}):
         * on a name without one, {@code tryAcquire} returns empty and {@code acquire} waits. Default false.
         */
        public Builder onlyExistingLocks(boolean onlyExistingLocks) {
            this.onlyExistingLocks = onlyExistingLocks;
            return this;
        }

        /** The provider; the table must exist ({@link DynamoDbLockProvider#createTable()}). */
        public DynamoDbLockProvider build() {
            return new DynamoDbLockProvider(this);
        }

        /** The host name (from the environment or {@code /etc/hostname}, no DNS lookup) and the process id. */
        static String defaultOwnerName() {
            String host = System.getenv("HOSTNAME");
            if (host == null || host.isBlank()) {
                host = System.getenv("COMPUTERNAME");
            }
            if (host == null || host.isBlank()) {
                try {
                    host = java.nio.file.Files.readString(java.nio.file.Path.of("/etc/hostname")).strip();
                } catch (java.io.IOException | RuntimeException e) {
                    host = null;
                }
            }
            if (host == null || host.isBlank()) {
                host = "unknown-host";
            }
            String name = host.replaceAll("\\p{Cntrl}", "?") + "/" + ProcessHandle.current().pid();
            return name.length() > 200 ? name.substring(0, 200) : name;
        }
    }
}
