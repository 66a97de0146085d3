package dev.fencing.s3;

import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.internal.Checks;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link FencedS3} for the {@link S3AsyncClient}: the same steps, requests and exceptions, with
 * futures (failures arrive wrapped in {@link CompletionException}, as the SDK's own). The body is
 * given as a supplier, called once per attempt. Thread-safe.
 */
public final class FencedS3Async {

    private final S3AsyncClient s3;
    private final Policy policy;
    private final int maxAttempts;
    private final EtagCache cache = new EtagCache(10_000);

    private FencedS3Async(S3AsyncClient s3, Policy policy, int maxAttempts) {
        this.s3 = s3;
        this.policy = policy;
        this.maxAttempts = maxAttempts;
    }

    /** {@link Policy#MONOTONIC}, 5 attempts, an ETag cache of 10,000 keys. */
    public static FencedS3Async create(S3AsyncClient s3) {
        return create(s3, Policy.MONOTONIC, 5);
    }

    /** With the given policy and attempts (1 to 100). */
    public static FencedS3Async create(S3AsyncClient s3, Policy policy, int maxAttempts) {
        Checks.requireNonNull("s3", s3);
        if (maxAttempts < 1 || maxAttempts > 100) {
            throw new IllegalArgumentException("maxAttempts must be between 1 and 100, got " + maxAttempts);
        }
        return new FencedS3Async(s3, Checks.requireNonNull("policy", policy), maxAttempts);
    }

    /** See {@link FencedS3#putObject}. */
    public CompletableFuture<PutObjectResponse> putObject(FencingToken token, PutObjectRequest request,
            Supplier<AsyncRequestBody> body) {
        try {
            Checks.requireNonNull("token", token);
            Checks.requireNonNull("body", body);
            FencedS3.checkRequest(request);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return write(token, request, body, false, cache.get(FencedS3.id(request.bucket(), request.key())), 1);
    }

    /** See {@link FencedS3#deleteObject}: a zero-byte tombstone that keeps the token. */
    public CompletableFuture<PutObjectResponse> deleteObject(FencingToken token, String bucket, String key) {
        try {
            Checks.requireNonNull("token", token);
            PutObjectRequest request = PutObjectRequest.builder().bucket(FencedS3.requireBucket(bucket))
                    .key(FencedS3.requireKey(key)).build();
            return write(token, request, AsyncRequestBody::empty, true, cache.get(FencedS3.id(bucket, key)), 1);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** See {@link FencedS3#getObject}. */
    public CompletableFuture<Optional<FencedObject>> getObject(String bucket, String key) {
        return s3.getObject(r -> r.bucket(bucket).key(key), AsyncResponseTransformer.toBytes()).handle((object, failure) -> {
            if (failure != null) {
                Throwable cause = unwrap(failure);
                if (cause instanceof NoSuchKeyException) {
                    return Optional.<FencedObject>empty();
                }
                throw S3Errors.classify(cause) == S3Errors.Kind.NO_SUCH_BUCKET
                        ? S3Errors.noSuchBucket(bucket, cause) : new CompletionException(cause);
            }
            ObjectState state = ObjectState.of(object.response().eTag(), object.response().metadata());
            if (state.tombstone()) {
                return Optional.<FencedObject>empty();
            }
            return Optional.of(new FencedObject(bucket, key, object.asByteArray(), state.token().orElse(0),
                    object.response().eTag(), FencedS3.userMetadata(object.response().metadata()),
                    object.response().contentType()));
        });
    }

    private CompletableFuture<PutObjectResponse> write(FencingToken token, PutObjectRequest request,
            Supplier<AsyncRequestBody> body, boolean tombstone, ObjectState known, int attempt) {
        String id = FencedS3.id(request.bucket(), request.key());
        if (attempt > maxAttempts) {
            return CompletableFuture.failedFuture(ConcurrentUpdateException.gaveUp(id, maxAttempts));
        }
        CompletableFuture<ObjectState> state = known != null ? CompletableFuture.completedFuture(known)
                : head(request.bucket(), request.key());
        return state.thenCompose(current -> {
            if (current.token().isPresent() && !policy.accepts(token.value(), current.token().getAsLong())) {
                cache.remove(id);
                throw StaleTokenException.of(id, token, current.token().getAsLong(), policy);
            }
            Map<String, String> metadata = new HashMap<>(request.hasMetadata() ? request.metadata() : Map.of());
            metadata.put(FencedS3.TOKEN_METADATA, Long.toString(token.value()));
            if (tombstone) {
                metadata.put(FencedS3.DELETED_METADATA, "true");
            }
            PutObjectRequest fenced = request.toBuilder().metadata(metadata)
                    .ifMatch(current.exists() ? current.etag() : null)
                    .ifNoneMatch(current.exists() ? null : "*").build();
            return s3.putObject(fenced, body.get()).handle((response, failure) -> {
                if (failure == null) {
                    cache.put(id, new ObjectState(true, response.eTag(), OptionalLong.of(token.value()), tombstone));
                    return CompletableFuture.completedFuture(response);
                }
                Throwable cause = unwrap(failure);
                return switch (S3Errors.classify(cause)) {
                    case CHANGED -> {
                        cache.remove(id);
                        yield write(token, request, body, tombstone, null, attempt + 1);
                    }
                    case NO_SUCH_BUCKET -> CompletableFuture.<PutObjectResponse>failedFuture(
                            S3Errors.noSuchBucket(request.bucket(), cause));
                    default -> CompletableFuture.<PutObjectResponse>failedFuture(cause);
                };
            }).thenCompose(f -> f);
        });
    }

    private CompletableFuture<ObjectState> head(String bucket, String key) {
        return s3.headObject(r -> r.bucket(bucket).key(key)).handle((head, failure) -> {
            if (failure == null) {
                return ObjectState.of(head.eTag(), head.metadata());
            }
            Throwable cause = unwrap(failure);
            if (cause instanceof S3Exception e && e.statusCode() == 404) {
                return ObjectState.ABSENT;
            }
            throw new CompletionException(cause);
        });
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
