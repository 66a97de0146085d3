package dev.fencing.dynamodb.lock;

import java.time.Duration;

/**
 * A lock held right now, as {@link DynamoDbLockProvider#listHeldLocks()} finds it in the table.
 *
 * @param resource the lock's name
 * @param ownerId the random owner id of the lease holding it
 * @param ownerName the holder's readable name (host and process by default, {@code Builder.ownerName}), empty if
 *     its grant wrote none
 * @param remaining how long until its written expiry, by this client's wall clock (an estimate: clocks differ)
 * @param token the token of the lease holding it
 */
public record HeldLock(String resource, String ownerId, String ownerName, Duration remaining, long token) {}
