package dev.fencing.s3;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StorageBasedFencedStore;
import dev.fencing.core.spi.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The common {@link FencedStore} on an S3 bucket: one object per key (under an optional prefix),
 * the value as UTF-8 body, the token in metadata, the ETag as the version. Writes go through
 * {@link FencedS3}; a read-modify-write puts with {@code If-Match} on the ETag it read (or
 * {@code If-None-Match: *}), so a write landing in between is never overwritten. Thread-safe.
 */
public final class S3FencedStore implements StorageAccessor<String> {

    private final S3Client s3;
    private final FencedS3 fenced;
    private final String bucket;
    private final String prefix;

    private S3FencedStore(S3Client s3, FencedS3 fenced, String bucket, String prefix) {
        this.s3 = s3;
        this.fenced = fenced;
        this.bucket = bucket;
        this.prefix = prefix;
    }

    /** A store on {@code bucket}, keys as object keys, under {@link Policy#MONOTONIC}. */
    public static FencedStore create(S3Client s3, String bucket) {
        return create(s3, bucket, "", Policy.MONOTONIC, FencingListener.NONE);
    }

    /** A store on {@code bucket} with object keys {@code prefix + key}. */
    public static FencedStore create(S3Client s3, String bucket, String prefix, Policy policy, FencingListener listener) {
        Checks.requireNonNull("s3", s3);
        FencedS3.requireBucket(bucket);
        Checks.requireNonNull("prefix", prefix);
        FencedS3 fenced = FencedS3.builder(s3).policy(policy).build();
        return new StorageBasedFencedStore(new S3FencedStore(s3, fenced, bucket, prefix), policy, listener, 100);
    }

    @Override
    public Optional<Snapshot<String>> load(String key) {
        try {
            ResponseBytes<GetObjectResponse> object = s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + key));
            ObjectState state = ObjectState.of(object.response().eTag(), object.response().metadata());
            return Optional.of(new Snapshot<>(state.tombstone() ? null : object.asString(StandardCharsets.UTF_8),
                    state.token().orElse(0), state.etag()));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            throw S3Errors.classify(e) == S3Errors.Kind.NO_SUCH_BUCKET ? S3Errors.noSuchBucket(bucket, e) : e;
        }
    }

    @Override
    public WriteOutcome write(String key, String value, long token, Policy policy) {
        FencingToken fencing = FencingToken.of(key, token);
        try {
            if (value == null) {
                fenced.deleteObject(fencing, bucket, prefix + key);
            } else {
                fenced.putObject(fencing, request(key), RequestBody.fromString(value, StandardCharsets.UTF_8));
            }
            return WriteOutcome.written();
        } catch (StaleTokenException e) {
            return WriteOutcome.stale(e.highWaterMark());
        }
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, Snapshot<String> expected, String value, long token, Policy policy) {
        if (expected != null && !policy.accepts(token, expected.token())) {
            return WriteOutcome.stale(expected.token());
        }
        Map<String, String> metadata = value == null
                ? Map.of(FencedS3.TOKEN_METADATA, Long.toString(token), FencedS3.DELETED_METADATA, "true")
                : Map.of(FencedS3.TOKEN_METADATA, Long.toString(token));
        PutObjectRequest conditional = request(key).toBuilder().metadata(metadata)
                .ifMatch(expected == null ? null : expected.version())
                .ifNoneMatch(expected == null ? "*" : null).build();
        try {
            s3.putObject(conditional, value == null ? RequestBody.empty()
                    : RequestBody.fromString(value, StandardCharsets.UTF_8));
            return WriteOutcome.written();
        } catch (S3Exception e) {
            return switch (S3Errors.classify(e)) {
                case CHANGED -> WriteOutcome.conflict(); // the core reloads and decides stale or retry
                case NO_SUCH_BUCKET -> throw S3Errors.noSuchBucket(bucket, e);
                default -> throw e;
            };
        }
    }

    private PutObjectRequest request(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(prefix + key).contentType("text/plain; charset=utf-8").build();
    }
}
