/**
 * A lock provider on one DynamoDB table: {@link dev.fencing.dynamodb.lock.DynamoDbLockProvider}.
 */
@NullMarked
package dev.fencing.dynamodb.lock;

import org.jspecify.annotations.NullMarked;
