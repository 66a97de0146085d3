package dev.fencing.s3;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.Checks;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Fenced writes on S3 with conditional puts. The token lives in the object's user metadata
 * ({@code x-amz-meta-fencing-token}), visible to any client through {@code HeadObject}.
 *
 * <h2>A fenced put</h2>
 * <ol>
 *   <li>Know the object's ETag and stored token: from this writer's ETag cache, else one
 *       {@code HeadObject}.
 *   <li>Refuse with {@link StaleTokenException} if the stored token is one the policy refuses.
 *   <li>{@code PutObject} with the token in metadata and {@code If-Match: <etag>}
 *       ({@code If-None-Match: *} when the key is absent). The check and the write are one atomic
 *       conditional request of S3.
 *   <li>On {@code 412 PreconditionFailed}, {@code 409 ConditionalRequestConflict} or a 404 for
 *       {@code If-Match} (the object changed or vanished since step 1): forget the cached state and go
 *       back to step 1, at most {@code maxAttempts} times, then {@link ConcurrentUpdateException}.
 * </ol>
 * <b>Requests per fenced put:</b> 2 (HEAD + PUT) with a cold cache; 1 (PUT) when this writer wrote
 * the key last and the cache still holds its ETag; each retry after a 412 adds a HEAD and a PUT.
 *
 * <p>Your request's own metadata, content type and other headers are kept; it must not set the
 * toolkit's metadata keys ({@value #TOKEN_METADATA}, {@value #DELETED_METADATA}) or its own
 * {@code If-Match}/{@code If-None-Match}. The body must be replayable for retries
 * ({@code RequestBody.fromBytes}, {@code fromString}, {@code fromFile}). A fenced delete writes a
 * zero-byte tombstone carrying the token; {@link #getObject} treats it as absent. Thread-safe.
 */
public final class FencedS3 {

    /** The user-metadata key of the token. */
    public static final String TOKEN_METADATA = "fencing-token";
    /** The user-metadata key marking a tombstone. */
    public static final String DELETED_METADATA = "fencing-deleted";

    private final S3Client s3;
    private final Policy policy;
    private final int maxAttempts;
    private final EtagCache cache;

    private FencedS3(S3Client s3, Policy policy, int maxAttempts, int cacheSize) {
        this.s3 = s3;
        this.policy = policy;
        this.maxAttempts = maxAttempts;
        this.cache = new EtagCache(cacheSize);
    }

    /** {@link Policy#MONOTONIC}, 5 attempts, an ETag cache of 10,000 keys. */
    public static FencedS3 create(S3Client s3) {
        return builder(s3).build();
    }

    /** A builder over {@code s3}. */
    public static Builder builder(S3Client s3) {
        return new Builder(Checks.requireNonNull("s3", s3));
    }

    /**
     * Puts the object with the token, only if no newer token is stored.
     *
     * @throws StaleTokenException if the object carries a token the policy refuses; nothing was written
     * @throws ConcurrentUpdateException if the object kept changing for {@code maxAttempts} rounds
     * @throws IllegalStateException if the bucket does not exist
     * @throws IllegalArgumentException if the request sets the toolkit's metadata or its own conditions
     */
    public PutObjectResponse putObject(FencingToken token, PutObjectRequest request, RequestBody body) {
        Checks.requireNonNull("token", token);
        Checks.requireNonNull("body", body);
        checkRequest(request);
        return write(token, request, body, false);
    }

    /**
     * A fenced delete: replaces the object with a zero-byte tombstone that keeps the token, so an
     * older holder cannot re-create it. Same exceptions as {@link #putObject}.
     */
    public void deleteObject(FencingToken token, String bucket, String key) {
        Checks.requireNonNull("token", token);
        write(token, PutObjectRequest.builder().bucket(requireBucket(bucket)).key(requireKey(key)).build(),
                RequestBody.empty(), true);
    }

    /** The object with its token; empty if absent or a tombstone. */
    public Optional<FencedObject> getObject(String bucket, String key) {
        try {
            ResponseBytes<GetObjectResponse> object = s3.getObjectAsBytes(r -> r.bucket(requireBucket(bucket))
                    .key(requireKey(key)));
            GetObjectResponse response = object.response();
            ObjectState state = ObjectState.of(response.eTag(), response.metadata());
            if (state.tombstone()) {
                return Optional.empty();
            }
            return Optional.of(new FencedObject(bucket, key, object.asByteArray(), state.token().orElse(0),
                    response.eTag(), userMetadata(response.metadata()), response.contentType()));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            throw S3Errors.classify(e) == S3Errors.Kind.NO_SUCH_BUCKET ? S3Errors.noSuchBucket(bucket, e) : e;
        }
    }

    /** The token stored on the object (or its tombstone), if any. One {@code HeadObject}. */
    public OptionalLong highWaterMark(String bucket, String key) {
        return head(requireBucket(bucket), requireKey(key)).token();
    }

    /**
     * Uploads {@code file} in parts of {@code partSize} bytes (5 MiB or more) and completes the
     * upload with {@code If-Match} / {@code If-None-Match}, after the same token check as
     * {@link #putObject}: one HEAD, a create, one request per part, and the complete. If the
     * object changes before the complete, the upload is checked again and completed under the new
     * condition or aborted (stale). Your request's bucket, key, content type and metadata apply.
     */
    public CompleteMultipartUploadResponse putObjectMultipart(FencingToken token, PutObjectRequest request, Path file,
            long partSize) {
        Checks.requireNonNull("token", token);
        checkRequest(request);
        if (partSize < 5L * 1024 * 1024) {
            throw new IllegalArgumentException("partSize must be at least 5 MiB (S3's minimum part), got " + partSize);
        }
        String bucket = request.bucket();
        String key = request.key();
        ObjectState state = checkedState(token, bucket, key, head(bucket, key));
        String uploadId;
        try {
            uploadId = s3.createMultipartUpload(CreateMultipartUploadRequest.builder().bucket(bucket).key(key)
                    .contentType(request.contentType()).cacheControl(request.cacheControl())
                    .contentDisposition(request.contentDisposition()).contentEncoding(request.contentEncoding())
                    .metadata(metadata(request.metadata(), token, false)).build()).uploadId();
        } catch (S3Exception e) {
            throw S3Errors.classify(e) == S3Errors.Kind.NO_SUCH_BUCKET ? S3Errors.noSuchBucket(bucket, e) : e;
        }
        try {
            List<CompletedPart> parts = uploadParts(bucket, key, uploadId, file, partSize);
            for (int attempt = 1; ; attempt++) {
                try {
                    CompleteMultipartUploadResponse done = s3.completeMultipartUpload(CompleteMultipartUploadRequest.builder()
                            .bucket(bucket).key(key).uploadId(uploadId)
                            .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build())
                            .ifMatch(state.exists() ? state.etag() : null)
                            .ifNoneMatch(state.exists() ? null : "*").build());
                    cache.put(id(bucket, key), new ObjectState(true, done.eTag(), OptionalLong.of(token.value()), false));
                    return done;
                } catch (S3Exception e) {
                    if (S3Errors.classify(e) != S3Errors.Kind.CHANGED) {
                        throw e;
                    }
                    if (attempt >= maxAttempts) {
                        throw ConcurrentUpdateException.gaveUp(id(bucket, key), attempt);
                    }
                    cache.remove(id(bucket, key));
                    state = checkedState(token, bucket, key, head(bucket, key));
                }
            }
        } catch (RuntimeException e) {
            abortQuietly(bucket, key, uploadId, e);
            throw e;
        }
    }

    private PutObjectResponse write(FencingToken token, PutObjectRequest request, RequestBody body, boolean tombstone) {
        String bucket = request.bucket();
        String key = request.key();
        String id = id(bucket, key);
        ObjectState state = cache.get(id);
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            if (state == null) {
                state = head(bucket, key);
            }
            state = checkedState(token, bucket, key, state);
            PutObjectRequest fenced = request.toBuilder()
                    .metadata(metadata(request.metadata(), token, tombstone))
                    .ifMatch(state.exists() ? state.etag() : null)
                    .ifNoneMatch(state.exists() ? null : "*")
                    .build();
            try {
                PutObjectResponse response = s3.putObject(fenced, body);
                cache.put(id, new ObjectState(true, response.eTag(), OptionalLong.of(token.value()), tombstone));
                return response;
            } catch (S3Exception e) {
                switch (S3Errors.classify(e)) {
                    case CHANGED -> {
                        cache.remove(id);
                        state = null; // someone wrote since we looked: look again
                    }
                    case NO_SUCH_BUCKET -> throw S3Errors.noSuchBucket(bucket, e);
                    default -> throw e;
                }
            }
        }
        throw ConcurrentUpdateException.gaveUp(id, maxAttempts);
    }

    private ObjectState checkedState(FencingToken token, String bucket, String key, ObjectState state) {
        if (state.token().isPresent() && !policy.accepts(token.value(), state.token().getAsLong())) {
            cache.remove(id(bucket, key));
            throw StaleTokenException.of(id(bucket, key), token, state.token().getAsLong(), policy);
        }
        return state;
    }

    private ObjectState head(String bucket, String key) {
        try {
            HeadObjectResponse head = s3.headObject(r -> r.bucket(bucket).key(key));
            return ObjectState.of(head.eTag(), head.metadata());
        } catch (NoSuchKeyException e) {
            return ObjectState.ABSENT; // or no bucket: a HEAD cannot tell, the put that follows will
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return ObjectState.ABSENT;
            }
            throw e;
        }
    }

    private List<CompletedPart> uploadParts(String bucket, String key, String uploadId, Path file, long partSize) {
        List<CompletedPart> parts = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            int number = 1;
            byte[] buffer;
            do {
                buffer = in.readNBytes((int) Math.min(partSize, Integer.MAX_VALUE - 8));
                if (buffer.length == 0 && number > 1) {
                    break;
                }
                int partNumber = number++;
                String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(partNumber),
                        RequestBody.fromBytes(buffer)).eTag();
                parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
            } while (buffer.length == partSize);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return parts;
    }

    private void abortQuietly(String bucket, String key, String uploadId, RuntimeException cause) {
        try {
            s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
        } catch (RuntimeException abortFailed) {
            cause.addSuppressed(abortFailed);
        }
    }

    private static Map<String, String> metadata(Map<String, String> callerMetadata, FencingToken token, boolean tombstone) {
        Map<String, String> metadata = new HashMap<>(callerMetadata == null ? Map.of() : callerMetadata);
        metadata.put(TOKEN_METADATA, Long.toString(token.value()));
        if (tombstone) {
            metadata.put(DELETED_METADATA, "true");
        }
        return metadata;
    }

    static Map<String, String> userMetadata(Map<String, String> metadata) {
        Map<String, String> user = new HashMap<>(metadata);
        user.remove(TOKEN_METADATA);
        user.remove(DELETED_METADATA);
        return user;
    }

    static void checkRequest(PutObjectRequest request) {
        Checks.requireNonNull("request", request);
        requireBucket(request.bucket());
        requireKey(request.key());
        if (request.ifMatch() != null || request.ifNoneMatch() != null) {
            throw new IllegalArgumentException("the request must not set If-Match or If-None-Match: the fenced put sets"
                    + " them itself from the object's current ETag");
        }
        if (request.hasMetadata()) {
            for (String name : request.metadata().keySet()) {
                String lower = name.toLowerCase(Locale.ROOT);
                if (lower.equals(TOKEN_METADATA) || lower.equals(DELETED_METADATA)) {
                    throw new IllegalArgumentException("the request must not set the metadata key '" + name
                            + "': the fenced put writes the token there itself");
                }
            }
        }
    }

    static String requireBucket(String bucket) {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("the request needs a bucket");
        }
        return bucket;
    }

    static String requireKey(String key) {
        if (key == null || key.isEmpty() || key.length() > 1024) {
            throw new IllegalArgumentException("the object key must be 1 to 1024 characters, got '" + key + "'");
        }
        return key;
    }

    static String id(String bucket, String key) {
        return bucket + "/" + key;
    }

    /** Configures a {@link FencedS3}. */
    public static final class Builder {
        private final S3Client s3;
        private Policy policy = Policy.MONOTONIC;
        private int maxAttempts = 5;
        private int cacheSize = 10_000;

        private Builder(S3Client s3) {
            this.s3 = s3;
        }

        /** The policy; default {@link Policy#MONOTONIC}. */
        public Builder policy(Policy policy) {
            this.policy = Checks.requireNonNull("policy", policy);
            return this;
        }

        /** Conditional puts tried before giving up on a key that keeps changing; 1 to 100, default 5. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1 || maxAttempts > 100) {
                throw new IllegalArgumentException("maxAttempts must be between 1 and 100, got " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** Keys whose ETag and token this writer remembers; 0 turns the cache off (always HEAD first). Default 10,000. */
        public Builder etagCacheSize(int cacheSize) {
            if (cacheSize < 0 || cacheSize > 10_000_000) {
                throw new IllegalArgumentException("etagCacheSize must be between 0 and 10000000, got " + cacheSize);
            }
            this.cacheSize = cacheSize;
            return this;
        }

        public FencedS3 build() {
            return new FencedS3(s3, policy, maxAttempts, cacheSize);
        }
    }
}
