/**
 * What the toolkit's DynamoDB and S3 stores share on the AWS SDK for Java 2: {@link
 * dev.fencing.aws.internal.RequestBounds} (every request bounded, a timeout named) and {@link
 * dev.fencing.aws.internal.AwsReplies} (no blind retries of a fenced write, unclear failures told
 * from refusals). Internal to the toolkit: not an API, may change in any release.
 */
@NullMarked
package dev.fencing.aws.internal;

import org.jspecify.annotations.NullMarked;
