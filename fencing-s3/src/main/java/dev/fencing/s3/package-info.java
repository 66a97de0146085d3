/**
 * Fencing tokens enforced by S3 conditional writes: {@link dev.fencing.s3.FencedS3} (and
 * {@link dev.fencing.s3.FencedS3Async}) check the stored token, then write with {@code If-Match} /
 * {@code If-None-Match} on an object whose bytes are unique to the write — a pointer in the
 * default {@link dev.fencing.s3.S3Layout#POINTER} layout, so the fence holds whatever the content;
 * {@link dev.fencing.s3.S3FencedStore} is the common {@link dev.fencing.core.FencedStore}.
 */
@NullMarked
package dev.fencing.s3;

import org.jspecify.annotations.NullMarked;
