package dev.fencing.s3;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.Checks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * Fenced writes on S3: a put carrying a fencing token lands only if the key holds no newer token,
 * checked and written in one conditional request. The token is in the object's user metadata
 * ({@code x-amz-meta-fencing-token}), visible to any client through {@code HeadObject}.
 *
 * <h2>A fenced put</h2>
 * <ol>
 *   <li>Know the state of the object at the key — its ETag and stored token: this writer's cache,
 *       else one {@code HeadObject}. Refuse with {@link StaleTokenException} if the token is one the
 *       policy refuses.
 *   <li>Write with {@code If-Match: <that ETag>} ({@code If-None-Match: *} for an absent key), so the
 *       write lands only on the exact state whose token was checked.
 *   <li>On {@code 412}/{@code 409} (or 404 for {@code If-Match}) look again: if the object carries
 *       this write's own write id, the write had landed and the answer was for the SDK's retry of
 *       it; otherwise go back to step 1, at most {@code maxAttempts} times, then
 *       {@link ConcurrentUpdateException}.
 * </ol>
 * Step 2 tells writes apart only by bytes (the ETag of a one-part upload is the MD5 of its body),
 * so what is compared must be unique to each write: the {@link S3Layout} decides how. The default,
 * {@link S3Layout#POINTER}, is sound for every body; {@link S3Layout#IN_PLACE} keeps objects
 * readable by any S3 client but lets a stale write through when a newer holder wrote identical
 * bytes — you must name it at construction to get it.
 *
 * <p>A fenced delete writes a tombstone (a few dozen bytes of text with the token and a random
 * write id, metadata {@code fencing-deleted: true}) that keeps the mark, so an older holder cannot
 * re-create the key; {@link #getObject} treats it as absent.
 *
 * <p>Your request's own metadata, content type and other headers are kept; it must not set the
 * toolkit's metadata keys ({@code fencing-token}, {@code fencing-deleted}, {@code fencing-write},
 * {@code fencing-layout}) or its own {@code If-Match}/{@code If-None-Match}. The body must be
 * replayable for retries ({@code RequestBody.fromBytes}, {@code fromString}, {@code fromFile}).
 * A missing bucket is the SDK's {@link NoSuchBucketException}, naming the bucket. Thread-safe.
 */
public final class FencedS3 {

    /** The user-metadata key of the token. */
    public static final String TOKEN_METADATA = Metadata.TOKEN;
    /** The user-metadata key marking a tombstone. */
    public static final String DELETED_METADATA = Metadata.DELETED;

    private final FencedWrites<RequestBody> writes;

    private FencedS3(S3Client s3, Settings settings, Duration requestTimeout, FencingListener listener) {
        this.writes = new FencedWrites<>(new SyncS3Port(BoundedS3.wrap(s3, requestTimeout)), settings, listener);
    }

    /** {@link S3Layout#POINTER}, {@link Policy#MONOTONIC}, 5 attempts, an ETag cache of 10,000 keys. */
    public static FencedS3 create(S3Client s3) {
        return builder(s3).build();
    }

    /** A builder over {@code s3}. */
    public static Builder builder(S3Client s3) {
        return new Builder(Checks.requireNonNull("s3", s3));
    }

    /**
     * Puts the object with the token, only if the key holds no token the policy refuses. Under
     * {@link S3Layout#POINTER} the answer is the data object's (its ETag is the content's).
     *
     * @throws StaleTokenException if the key carries a token the policy refuses; nothing was written
     * @throws dev.fencing.core.ForeignTokenException if the key is fenced by another lock's tokens (the
     *     {@code fencing-resource} metadata); nothing was written
     * @throws ConcurrentUpdateException if the object kept changing for {@code maxAttempts} rounds
     * @throws NoSuchBucketException if the bucket does not exist
     * @throws IllegalArgumentException if the request sets the toolkit's metadata or its own conditions,
     *     or the key is too long for the layout
     */
    public PutObjectResponse putObject(FencingToken token, PutObjectRequest request, RequestBody body) {
        Checks.requireNonNull("token", token);
        Checks.requireNonNull("body", body);
        writes.checkPut(request, token);
        return join(writes.put(token, request, body));
    }

    /**
     * A fenced delete: replaces the object with a tombstone that keeps the token, so an older holder
     * cannot re-create it. Deleting an absent key records the mark too. Same exceptions as
     * {@link #putObject}.
     */
    public void deleteObject(FencingToken token, String bucket, String key) {
        Checks.requireNonNull("token", token);
        join(writes.delete(token, FencedWrites.requireBucket(bucket), FencedWrites.requireKey(key)));
    }

    /**
     * The store's path of {@link #putObject}: a refusal is thrown but reported to nobody, so that the
     * store reports it once, by its own key.
     */
    void putObjectUnreported(FencingToken token, PutObjectRequest request, RequestBody body) {
        writes.checkPut(request, token);
        join(writes.unreportedPut(token, request, body));
    }

    /** The store's path of {@link #deleteObject}: a refusal is thrown but reported to nobody. */
    void deleteObjectUnreported(FencingToken token, String bucket, String key) {
        join(writes.unreportedDelete(token, bucket, key));
    }

    /**
     * The content at {@code key} with its token, in either layout (a pointer is followed to its
     * data object); empty if absent or a tombstone. One GET, two under {@link S3Layout#POINTER}.
     */
    public Optional<FencedObject> getObject(String bucket, String key) {
        return join(writes.get(FencedWrites.requireBucket(bucket), FencedWrites.requireKey(key)));
    }

    /** The token stored at {@code key} (on its object, pointer or tombstone), if any. One {@code HeadObject}. */
    public OptionalLong highWaterMark(String bucket, String key) {
        return join(writes.highWaterMark(FencedWrites.requireBucket(bucket), FencedWrites.requireKey(key)));
    }

    /**
     * Uploads {@code file} in parts of {@code partSize} bytes (5 MiB to 5 GiB; at most 10,000
     * parts) and makes it the content of the key as soundly as {@link #putObject}: under
     * {@link S3Layout#POINTER} the upload goes to a data object of its own and the pointer is swapped
     * after it completes; under {@link S3Layout#IN_PLACE} the completion itself carries
     * {@code If-Match}/{@code If-None-Match}. A stale token aborts the upload. Your request's bucket,
     * key, content type, encryption, storage class, tagging and metadata apply.
     */
    public CompleteMultipartUploadResponse putObjectMultipart(FencingToken token, PutObjectRequest request, Path file,
            long partSize) {
        Checks.requireNonNull("token", token);
        Checks.requireNonNull("file", file);
        writes.checkPut(request, token);
        return join(writes.putFile(token, request, file, partSize));
    }

    /** The layout this writer puts objects in. */
    public S3Layout layout() {
        return writes.settings().layout();
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (RuntimeException e) {
            throw S3Errors.rethrow(e);
        }
    }

    /** Configures a {@link FencedS3}: the same settings as {@link FencedS3Async.Builder}. */
    public static final class Builder extends WriterBuilder<Builder> {
        private final S3Client s3;

        private Builder(S3Client s3) {
            this.s3 = s3;
        }

        @Override
        Builder self() {
            return this;
        }

        /** The wrapper. */
        public FencedS3 build() {
            return new FencedS3(s3, settings(), requestTimeout(), listener());
        }
    }
}
