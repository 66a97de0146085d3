/**
 * Fencing tokens enforced by DynamoDB condition expressions: {@link
 * dev.fencing.dynamodb.FencedDynamoDb} (and {@link dev.fencing.dynamodb.FencedDynamoDbAsync}) add
 * the token and its condition to your own requests and read around tombstones, {@link
 * dev.fencing.dynamodb.FencingTokenExtension} and {@link dev.fencing.dynamodb.FencedTable} do the
 * same for the enhanced client on the same attributes, so the two paths fence each other, and
 * {@link dev.fencing.dynamodb.DynamoDbFencedStore} is the common {@link dev.fencing.core.FencedStore}.
 */
@NullMarked
package dev.fencing.dynamodb;

import org.jspecify.annotations.NullMarked;
