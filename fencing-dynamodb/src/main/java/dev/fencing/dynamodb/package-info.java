/**
 * Fencing tokens enforced by DynamoDB condition expressions: {@link
 * dev.fencing.dynamodb.FencedDynamoDb} (and {@link dev.fencing.dynamodb.FencedDynamoDbAsync}) add
 * the token and its condition to your own requests, {@link dev.fencing.dynamodb.FencingTokenExtension}
 * does it for the enhanced client, and {@link dev.fencing.dynamodb.DynamoDbFencedStore} is the
 * common {@link dev.fencing.core.FencedStore}.
 */
package dev.fencing.dynamodb;
