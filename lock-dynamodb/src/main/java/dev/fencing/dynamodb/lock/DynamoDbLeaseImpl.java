package dev.fencing.dynamodb.lock;

import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.DATA;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.EXPIRES;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.LEASE;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.OWNER;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.RELEASED;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.TOKEN;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.VERSION;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.number;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.requireData;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.stringOf;
import static dev.fencing.dynamodb.lock.DynamoDbLockProvider.versionOf;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.LeaseLostException;
import dev.fencing.core.MonotonicClock;
import dev.fencing.core.spi.AbstractLease;
import dev.fencing.dynamodb.lock.DynamoDbLockProvider.Expiry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/** A grant: renewed and released by owner and token, so a later grant of the same owner id cannot be touched. */
final class DynamoDbLeaseImpl extends AbstractLease implements DynamoDbLease {
    private final DynamoDbLockProvider provider;

    /** Renewals sent so far (one at a time: the base class serialises them). */
    private long renewals;
    /** The data the next renewal or release writes, set by the overloads that take data. */
    private volatile byte @Nullable [] pendingData;

    DynamoDbLeaseImpl(DynamoDbLockProvider provider, MonotonicClock clock, FencingListener listener, FencingToken token,
            String owner, long requestedAtNanos, Duration ttl) {
        super(token, owner, requestedAtNanos, ttl, clock, listener);
        this.provider = provider;
    }

    @Override
    public Optional<byte[]> data() {
        Map<String, AttributeValue> item = provider.read(resource());
        if (!ownerId().equals(stringOf(item, OWNER)) || provider.longOf(resource(), item, TOKEN) != token().value()) {
            throw LeaseLostException.of(token(), "the lock's item no longer shows this lease");
        }
        AttributeValue data = item.get(DATA);
        return data == null || data.b() == null ? Optional.empty() : Optional.of(data.b().asByteArray());
    }

    @Override
    public void renew(Duration ttl, byte[] data) {
        pendingData = requireData(data);
        try {
            renew(ttl);
        } finally {
            pendingData = null;
        }
    }

    @Override
    public void release(byte[] data) {
        pendingData = requireData(data);
        try {
            release();
        } finally {
            pendingData = null;
        }
    }

    @Override
    protected boolean doRenew(Duration ttl) {
        if (provider.expiry == Expiry.OWN_CLOCK && pastDeadline()) {
            // a waiter may be counting its last version out: not brought back, and freed now
            provider.sendGiveBack(resource(), ownerId(), token().value());
            return false;
        }
        long now = provider.wallClock.millis();
        Map<String, String> names = new HashMap<>(Map.of("#owner", OWNER, "#expires", EXPIRES, "#token", TOKEN,
                "#version", VERSION, "#lease", LEASE));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":owner", AttributeValue.fromS(ownerId()),
                ":token", number(token().value()), ":expires", number(now + ttl.toMillis()),
                ":version", AttributeValue.fromS(versionOf(ownerId(), ++renewals)), ":lease", number(ttl.toMillis())));
        String condition = "#owner = :owner AND #token = :token";
        if (provider.expiry == Expiry.SYNCHRONIZED_CLOCKS) {
            // not past its own expiry: a lease whose TTL ran out is lost even if nobody took the lock
            condition += " AND #expires >= :now";
            values.put(":now", number(now));
        }
        String update = "SET #expires = :expires, #version = :version, #lease = :lease" + withData(names, values);
        String checked = condition;
        try {
            provider.client.updateItem(r -> r.tableName(provider.table.name).key(provider.table.key(resource()))
                    .updateExpression(update)
                    .conditionExpression(checked).expressionAttributeNames(names).expressionAttributeValues(values)
                    .overrideConfiguration(c -> c.apiCallTimeout(provider.requestTimeout)));
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
        // an interrupt (before or during the request) must not leave the lock held: the SDK aborts
        // an interrupted call, so the release runs with the flag cleared and sets it again after;
        // an unclear reply is settled by a second send
        boolean interrupted = Thread.interrupted();
        try {
            return releaseOnServer();
        } catch (SdkClientException unclear) {
            // interrupted mid-request, timed out or cut off: the server may have released it. One
            // more send, whose condition fails if the first landed, finds its released_token
            interrupted |= Thread.interrupted();
            return releaseOnServer();
        } finally {
            provider.unreleased.remove(this);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean releaseOnServer() {
        if (provider.expiry == Expiry.OWN_CLOCK && pastDeadline()) {
            provider.giveBackNow(resource(), ownerId(), token().value()); // ran out on this holder's clock: lost, and freed now
            return false;
        }
        long now = provider.wallClock.millis();
        Map<String, String> names = new HashMap<>(Map.of("#owner", OWNER, "#expires", EXPIRES, "#token", TOKEN,
                "#released", RELEASED));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":owner", AttributeValue.fromS(ownerId()),
                ":token", number(token().value())));
        String condition = "#owner = :owner AND #token = :token";
        if (provider.expiry == Expiry.SYNCHRONIZED_CLOCKS) {
            condition += " AND #expires >= :now";
            values.put(":now", number(now));
        }
        String update = "SET #released = :token" + withData(names, values) + " REMOVE #owner, #expires";
        String checked = condition;
        try {
            provider.client.updateItem(r -> r.tableName(provider.table.name).key(provider.table.key(resource()))
                    .updateExpression(update)
                    .conditionExpression(checked).expressionAttributeNames(names).expressionAttributeValues(values)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                    .overrideConfiguration(c -> c.apiCallTimeout(provider.requestTimeout)));
            return true;
        } catch (ConditionalCheckFailedException refused) {
            Map<String, AttributeValue> current = provider.itemAfter(refused, resource());
            if (provider.longOf(resource(), current, RELEASED) == token().value()) {
                return true; // a re-send: the first send released this lease (no other release writes its token)
            }
            if (ownerId().equals(stringOf(current, OWNER)) && provider.longOf(resource(), current, TOKEN) == token().value()) {
                provider.giveBackNow(resource(), ownerId(), token().value()); // expired, not taken: free it now, and report the loss
            }
            return false;
        }
    }

    /** The SET clause for the pending data, if any, adding its name and value. */
    private String withData(Map<String, String> names, Map<String, AttributeValue> values) {
        byte @Nullable [] data = pendingData;
        if (data == null) {
            return "";
        }
        names.put("#data", DATA);
        values.put(":data", AttributeValue.fromB(SdkBytes.fromByteArray(data)));
        return ", #data = :data";
    }
}
