package dev.fencing.s3;

import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * {@link FencedS3} for the {@link S3AsyncClient}: the same layouts, steps, requests, settings and
 * exceptions, as futures — a failure, bad arguments included, completes the future exceptionally
 * with a {@link CompletionException} around the exception {@link FencedS3} would throw, as the SDK's
 * own futures do. The body must be one the SDK can send more than once
 * ({@code AsyncRequestBody.fromBytes}, {@code fromString}, {@code fromFile}). Thread-safe.
 */
public final class FencedS3Async {

    private final FencedWrites<AsyncRequestBody> writes;

    private FencedS3Async(S3AsyncClient s3, Settings settings, Duration requestTimeout, FencingListener listener) {
        this.writes = new FencedWrites<>(new AsyncS3Port(BoundedS3.wrap(s3, requestTimeout)), settings, listener);
    }

    /** {@link S3Layout#POINTER}, {@link Policy#MONOTONIC}, 5 attempts, an ETag cache of 10,000 keys. */
    public static FencedS3Async create(S3AsyncClient s3) {
        return builder(s3).build();
    }

    /** A builder over {@code s3}. */
    public static Builder builder(S3AsyncClient s3) {
        return new Builder(Checks.requireNonNull("s3", s3));
    }

    /** See {@link FencedS3#putObject}. */
    public CompletableFuture<PutObjectResponse> putObject(FencingToken token, PutObjectRequest request,
            AsyncRequestBody body) {
        return checked(() -> {
            Checks.requireNonNull("token", token);
            Checks.requireNonNull("body", body);
            writes.checkPut(request, token);
            return writes.put(token, request, body);
        });
    }

    /** See {@link FencedS3#deleteObject}. */
    public CompletableFuture<Void> deleteObject(FencingToken token, String bucket, String key) {
        return checked(() -> {
            Checks.requireNonNull("token", token);
            return writes.delete(token, FencedWrites.requireBucket(bucket), FencedWrites.requireKey(key));
        });
    }

    /** See {@link FencedS3#getObject}. */
    public CompletableFuture<Optional<FencedObject>> getObject(String bucket, String key) {
        return checked(() -> writes.get(FencedWrites.requireBucket(bucket), FencedWrites.requireKey(key)));
    }

    /** See {@link FencedS3#highWaterMark}. */
    public CompletableFuture<OptionalLong> highWaterMark(String bucket, String key) {
        return checked(() -> writes.highWaterMark(FencedWrites.requireBucket(bucket), FencedWrites.requireKey(key)));
    }

    /** See {@link FencedS3#putObjectMultipart}. */
    public CompletableFuture<CompleteMultipartUploadResponse> putObjectMultipart(FencingToken token,
            PutObjectRequest request, Path file, long partSize) {
        return checked(() -> {
            Checks.requireNonNull("token", token);
            Checks.requireNonNull("file", file);
            writes.checkPut(request, token);
            return writes.putFile(token, request, file, partSize);
        });
    }

    /** The layout this writer puts objects in. */
    public S3Layout layout() {
        return writes.settings().layout();
    }

    private static <T> CompletableFuture<T> checked(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get().exceptionallyCompose(failure -> CompletableFuture.failedFuture(S3Errors.unwrap(failure)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Configures a {@link FencedS3Async}: the same settings as {@link FencedS3.Builder}. */
    public static final class Builder extends WriterBuilder<Builder> {
        private final S3AsyncClient s3;

        private Builder(S3AsyncClient s3) {
            this.s3 = s3;
        }

        @Override
        Builder self() {
            return this;
        }

        /** The wrapper. */
        public FencedS3Async build() {
            return new FencedS3Async(s3, settings(), requestTimeout(), listener());
        }
    }
}
