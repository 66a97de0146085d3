package dev.fencing.dynamodb.lock;

import dev.fencing.core.Lease;
import dev.fencing.core.LeaseLostException;
import java.time.Duration;
import java.util.Optional;

/**
 * A lease of {@link DynamoDbLockProvider}, with the data stored on the lock's item
 * (amazon-dynamodb-lock-client's {@code withData}): set by a grant, replaced by a renewal or a
 * release, and read by the next holder — for example the checkpoint a worker leaves for its
 * successor. Every lease the provider hands out is one: {@code (DynamoDbLease) lease}, or the
 * provider's {@code acquire}/{@code tryAcquire} overloads that take data.
 */
public interface DynamoDbLease extends Lease {

    /** The most data stored with a lock, in bytes: the item stays well under DynamoDB's 400 KB. */
    int MAX_DATA_BYTES = 64 * 1024;

    /**
     * The data on the lock's item, read (consistently) from the table now: what this grant set, or
     * if it set none, what the previous holder left; empty if there is none.
     *
     * @throws LeaseLostException if the item no longer shows this lease (another holder's data may be there)
     */
    Optional<byte[]> data();

    /**
     * {@link #renew(Duration)}, replacing the data on the item in the same write.
     *
     * @throws IllegalArgumentException if {@code data} is longer than {@value #MAX_DATA_BYTES} bytes (nothing is written)
     */
    void renew(Duration ttl, byte[] data);

    /**
     * {@link #release()}, leaving {@code data} on the item for the next holder in the same write.
     *
     * @throws IllegalArgumentException if {@code data} is longer than {@value #MAX_DATA_BYTES} bytes (nothing is written)
     */
    void release(byte[] data);
}
