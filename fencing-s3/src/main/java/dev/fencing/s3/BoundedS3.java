package dev.fencing.s3;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
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

    static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final Duration callTimeout;
    private final Duration attemptTimeout;
    private final Duration requested;
    private final String server;

    private BoundedS3(S3ServiceClientConfiguration client, Duration requestTimeout) {
        ClientOverrideConfiguration own = client.overrideConfiguration();
        this.requested = requestTimeout;
        this.callTimeout = shorter(own.apiCallTimeout(), requestTimeout);
        this.attemptTimeout = shorter(own.apiCallAttemptTimeout(), callTimeout);
        this.server = "S3 at " + client.endpointOverride().map(Object::toString)
                .orElseGet(() -> "region " + client.region());
    }

    /** {@code s3} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static S3Client wrap(S3Client s3, Duration requestTimeout) {
        S3Client callers = s3 instanceof Sync bounded ? bounded.s3 : s3;
        return new Sync(callers, new BoundedS3(callers.serviceClientConfiguration(), requestTimeout));
    }

    /** {@code s3} with every request the toolkit sends bounded by {@code requestTimeout}. */
    static S3AsyncClient wrap(S3AsyncClient s3, Duration requestTimeout) {
        return new Async(s3, new BoundedS3(s3.serviceClientConfiguration(), requestTimeout));
    }

    private static Duration shorter(Optional<Duration> configured, Duration bound) {
        return configured.filter(own -> own.compareTo(bound) < 0).orElse(bound);
    }

    private AwsRequestOverrideConfiguration bounded(Optional<AwsRequestOverrideConfiguration> callers) {
        AwsRequestOverrideConfiguration.Builder override = callers.map(AwsRequestOverrideConfiguration::toBuilder)
                .orElseGet(AwsRequestOverrideConfiguration::builder);
        Duration call = shorter(callers.flatMap(AwsRequestOverrideConfiguration::apiCallTimeout), callTimeout);
        Duration attempt = shorter(callers.flatMap(AwsRequestOverrideConfiguration::apiCallAttemptTimeout),
                attemptTimeout);
        return override.apiCallTimeout(call).apiCallAttemptTimeout(attempt.compareTo(call) < 0 ? attempt : call)
                .build();
    }

    @SuppressWarnings("unchecked")
    private <R extends AwsRequest> R bounded(R request) {
        return (R) request.toBuilder().overrideConfiguration(bounded(request.overrideConfiguration())).build();
    }

    /** A timeout of the SDK as the one message a caller should see; anything else unchanged. */
    private Throwable named(Throwable failure, AwsRequest request, String bucket) {
        Throwable cause = S3Errors.unwrap(failure);
        if (!(cause instanceof ApiCallTimeoutException || cause instanceof ApiCallAttemptTimeoutException)) {
            return failure;
        }
        Duration bound = request.overrideConfiguration().flatMap(AwsRequestOverrideConfiguration::apiCallTimeout)
                .orElse(callTimeout);
        String setting = bound.equals(requested) ? "requestTimeout" : "the client's or request's apiCallTimeout";
        return ApiCallTimeoutException.builder().cause(cause).message(server + " did not answer "
                + request.getClass().getSimpleName().replace("Request", "") + " of bucket '" + bucket + "' within "
                + setting + " " + bound.toMillis() + " ms (a server that accepts connections but never answers,"
                + " or a transfer slower than the bound)").build();
    }

    private <R extends AwsRequest, T> T call(R request, String bucket, Function<R, T> send) {
        R bounded = bounded(request);
        try {
            return send.apply(bounded);
        } catch (SdkClientException e) {
            Throwable named = named(e, bounded, bucket);
            throw named instanceof SdkClientException client ? client : e;
        }
    }

    private <R extends AwsRequest, T> CompletableFuture<T> callAsync(R request, String bucket,
            Function<R, CompletableFuture<T>> send) {
        R bounded = bounded(request);
        CompletableFuture<T> result = new CompletableFuture<>();
        Supplier<CompletableFuture<T>> sent = () -> send.apply(bounded);
        sent.get().whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            } else {
                result.completeExceptionally(named(failure, bounded, bucket));
            }
        });
        return result;
    }

    /** The synchronous client, bounded. */
    private static final class Sync implements S3Client {
        private final S3Client s3;
        private final BoundedS3 bound;

        Sync(S3Client s3, BoundedS3 bound) {
            this.s3 = s3;
            this.bound = bound;
        }

        @Override
        public HeadObjectResponse headObject(HeadObjectRequest request) {
            return bound.call(request, request.bucket(), s3::headObject);
        }

        @Override
        public <T> T getObject(GetObjectRequest request, ResponseTransformer<GetObjectResponse, T> transformer) {
            return bound.call(request, request.bucket(), bounded -> s3.getObject(bounded, transformer));
        }

        @Override
        public ResponseInputStream<GetObjectResponse> getObject(GetObjectRequest request) {
            return bound.call(request, request.bucket(), s3::getObject);
        }

        @Override
        public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
            return bound.call(request, request.bucket(), bounded -> s3.putObject(bounded, body));
        }

        @Override
        public DeleteObjectResponse deleteObject(DeleteObjectRequest request) {
            return bound.call(request, request.bucket(), s3::deleteObject);
        }

        @Override
        public CreateMultipartUploadResponse createMultipartUpload(CreateMultipartUploadRequest request) {
            return bound.call(request, request.bucket(), s3::createMultipartUpload);
        }

        @Override
        public UploadPartResponse uploadPart(UploadPartRequest request, RequestBody body) {
            return bound.call(request, request.bucket(), bounded -> s3.uploadPart(bounded, body));
        }

        @Override
        public CompleteMultipartUploadResponse completeMultipartUpload(CompleteMultipartUploadRequest request) {
            return bound.call(request, request.bucket(), s3::completeMultipartUpload);
        }

        @Override
        public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest request) {
            return bound.call(request, request.bucket(), s3::abortMultipartUpload);
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
        private final BoundedS3 bound;

        Async(S3AsyncClient s3, BoundedS3 bound) {
            this.s3 = s3;
            this.bound = bound;
        }

        @Override
        public CompletableFuture<HeadObjectResponse> headObject(HeadObjectRequest request) {
            return bound.callAsync(request, request.bucket(), s3::headObject);
        }

        @Override
        public <T> CompletableFuture<T> getObject(GetObjectRequest request,
                AsyncResponseTransformer<GetObjectResponse, T> transformer) {
            return bound.callAsync(request, request.bucket(), bounded -> s3.getObject(bounded, transformer));
        }

        @Override
        public CompletableFuture<PutObjectResponse> putObject(PutObjectRequest request, AsyncRequestBody body) {
            return bound.callAsync(request, request.bucket(), bounded -> s3.putObject(bounded, body));
        }

        @Override
        public CompletableFuture<DeleteObjectResponse> deleteObject(DeleteObjectRequest request) {
            return bound.callAsync(request, request.bucket(), s3::deleteObject);
        }

        @Override
        public CompletableFuture<CreateMultipartUploadResponse> createMultipartUpload(
                CreateMultipartUploadRequest request) {
            return bound.callAsync(request, request.bucket(), s3::createMultipartUpload);
        }

        @Override
        public CompletableFuture<UploadPartResponse> uploadPart(UploadPartRequest request, AsyncRequestBody body) {
            return bound.callAsync(request, request.bucket(), bounded -> s3.uploadPart(bounded, body));
        }

        @Override
        public CompletableFuture<CompleteMultipartUploadResponse> completeMultipartUpload(
                CompleteMultipartUploadRequest request) {
            return bound.callAsync(request, request.bucket(), s3::completeMultipartUpload);
        }

        @Override
        public CompletableFuture<AbortMultipartUploadResponse> abortMultipartUpload(
                AbortMultipartUploadRequest request) {
            return bound.callAsync(request, request.bucket(), s3::abortMultipartUpload);
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
