package dev.fencing.s3;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.aws.internal.RequestBounds;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The caller's S3 client with a bound on every request the toolkit sends through it: each request
 * gets {@code apiCallTimeout} and {@code apiCallAttemptTimeout} of the bound, or the shorter one
 * the client or the request already has (a request's override wins over the client's in the SDK,
 * so the client's shorter setting is carried onto the request). A request that runs out of time
 * fails with an {@link ApiCallTimeoutException} naming the endpoint, the operation, the bucket and
 * the bound. Only the operations the toolkit sends are implemented; the rest are the SDK's
 * unsupported defaults, never reached.
 */
final class BoundedS3 {

    static final Duration DEFAULT_REQUEST_TIMEOUT = RequestBounds.DEFAULT_REQUEST_TIMEOUT;

    private BoundedS3() {}

    private static RequestBounds bounds(S3ServiceClientConfiguration client, Duration requestTimeout) {
        return new RequestBounds(AwsReplies.server("S3", client), client.overrideConfiguration(), requestTimeout,
                "a server that accepts connections but never answers, or a transfer slower than the bound");
    }

    /** {@code s3} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static S3Client wrap(S3Client s3, Duration requestTimeout) {
        S3Client callers = s3 instanceof Sync bounded ? bounded.s3 : s3;
        return new Sync(callers, bounds(callers.serviceClientConfiguration(), requestTimeout));
    }

    /** {@code s3} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static S3AsyncClient wrap(S3AsyncClient s3, Duration requestTimeout) {
        return new Async(s3, bounds(s3.serviceClientConfiguration(), requestTimeout));
    }

    private static String bucket(String name) {
        return "of bucket '" + name + "'";
    }

    /** The synchronous client, bounded. */
    private static final class Sync implements S3Client {
        private final S3Client s3;
        private final RequestBounds bound;

        Sync(S3Client s3, RequestBounds bound) {
            this.s3 = s3;
            this.bound = bound;
        }

        @Override
        public HeadObjectResponse headObject(HeadObjectRequest request) {
            return bound.call(request, bucket(request.bucket()), s3::headObject);
        }

        @Override
        public <T> T getObject(GetObjectRequest request, ResponseTransformer<GetObjectResponse, T> transformer) {
            return bound.call(request, bucket(request.bucket()), bounded -> s3.getObject(bounded, transformer));
        }

        @Override
        public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) {
            return bound.call(request, bucket(request.bucket()), s3::getObject);
        }

        @Override
        public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
            return bound.call(request, bucket(request.bucket()), bounded -> s3.putObject(bounded, body));
        }

        @Override
        public DeleteObjectResponse deleteObject(DeleteObjectRequest request) {
            return bound.call(request, bucket(request.bucket()), s3::deleteObject);
        }

        @Override
        public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest request) {
            return bound.call(request, bucket(request.bucket()), s3::createMultipartUpload);
        }

        @Override
        public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body) {
            return bound.call(request, bucket(request.bucket()), bounded -> s3.uploadPart(bounded, body));
        }

        @Override
        public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest request) {
            return bound.call(request, bucket(request.bucket()), s3::completeMultipartUpload);
        }

        @Override
        public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest request) {
            return bound.call(request, bucket(request.bucket()), s3::abortMultipartUpload);
        }

        @Override
        public S3ServiceClientConfiguration serviceClientConfiguration() {
            return s3.serviceClientConfiguration();
        }

        @Override
        public String serviceName() {
            return s3.serviceName();
        }

        @Override
        public void close() {
            // the caller owns the client
        }
    }

    /** The asynchronous client, bounded. */
    private static final class Async implements S3AsyncClient {
        private final S3AsyncClient s3;
        private final RequestBounds bound;

        Async(S3AsyncClient s3, RequestBounds bound) {
            this.s3 = s3;
            this.bound = bound;
        }

        @Override
        public CompletableFuture<HeadObjectResponse> headObject(HeadObjectRequest request) {
            return bound.callAsync(request, bucket(request.bucket()), s3::headObject);
        }

        @Override
        public <T> CompletableFuture<T> getObject(GetObjectRequest request,
                AsyncResponseTransformer<GetObjectResponse, T> transformer) {
            return bound.callAsync(request, bucket(request.bucket()), bounded -> s3.getObject(bounded, transformer));
        }

        @Override
        public CompletableFuture<PutObjectResponse> putObject(PutObjectRequest request, AsyncRequestBody body) {
            return bound.callAsync(request, bucket(request.bucket()), bounded -> s3.putObject(bounded, body));
        }

        @Override
        public CompletableFuture<DeleteObjectResponse> deleteObject(DeleteObjectRequest request) {
            return bound.callAsync(request, bucket(request.bucket()), s3::deleteObject);
        }

        @Override
        public CompletableFuture<CreateMultipartUploadResponse> createMultipartUpload(
                CreateMultipartUploadRequest request) {
            return bound.callAsync(request, bucket(request.bucket()), s3::createMultipartUpload);
        }

        @Override
        public CompletableFuture<UploadPartResponse> uploadPart(UploadPartRequest request, AsyncRequestBody body) {
            return bound.callAsync(request, bucket(request.bucket()), bounded -> s3.uploadPart(bounded, body));
        }

        @Override
        public CompletableFuture<CompleteMultipartUploadResponse> completeMultipartUpload(
                CompleteMultipartUploadRequest request) {
            return bound.callAsync(request, bucket(request.bucket()), s3::completeMultipartUpload);
        }

        @Override
        public CompletableFuture<AbortMultipartUploadResponse> abortMultipartUpload(
                AbortMultipartUploadRequest request) {
            return bound.callAsync(request, bucket(request.bucket()), s3::abortMultipartUpload);
        }

        @Override
        public S3ServiceClientConfiguration serviceClientConfiguration() {
            return s3.serviceClientConfiguration();
        }

        @Override
        public String serviceName() {
            return s3.serviceName();
        }

        @Override
        public void close() {
            // the caller owns the client
        }
    }
}
