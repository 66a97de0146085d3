/**
 * Fencing tokens enforced by S3 conditional writes: {@link dev.fencing.s3.FencedS3} (and
 * {@link dev.fencing.s3.FencedS3Async}) put with {@code If-Match} / {@code If-None-Match} after
 * checking the stored token, and {@link dev.fencing.s3.S3FencedStore} is the common
 * {@link dev.fencing.core.FencedStore}.
 */
package dev.fencing.s3;
