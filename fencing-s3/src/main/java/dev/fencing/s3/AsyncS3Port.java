package dev.fencing.s3;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.FileRequestBodyConfiguration;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/** {@link S3Port} over the {@link S3AsyncClient}. */
final class AsyncS3Port implements S3Port<AsyncRequestBody> {

    private final S3AsyncClient s3;

    AsyncS3Port(S3AsyncClient s3) {
        this.s3 = s3;
    }

    @Override
    public AsyncRequestBody bytes(byte[] content) {
        return AsyncRequestBody.fromBytes(content);
    }

    @Override
    public AsyncRequestBody filePart(Path file, long offset, long length) {
        return AsyncRequestBody.fromFile(FileRequestBodyConfiguration.builder().path(file).position(offset)
                .numBytesToRead(length).build());
    }

    @Override
    public CompletableFuture<HeadObjectResponse> head(String bucket, String key) {
        return s3.headObject(r -> r.bucket(bucket).key(key));
    }

    @Override
    public CompletableFuture<ResponseBytes<GetObjectResponse>> get(String bucket, String key) {
        return s3.getObject(r -> r.bucket(bucket).key(key), AsyncResponseTransformer.toBytes());
    }

    @Override
    public CompletableFuture<PutObjectResponse> put(PutObjectRequest request, AsyncRequestBody body) {
        return s3.putObject(request, body);
    }

    @Override
    public CompletableFuture<Void> delete(String bucket, String key) {
        return s3.deleteObject(r -> r.bucket(bucket).key(key)).thenApply(response -> null);
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(CreateMultipartUploadRequest request) {
        return s3.createMultipartUpload(request).thenApply(CreateMultipartUploadResponse::uploadId);
    }

    @Override
    public CompletableFuture<String> uploadPart(UploadPartRequest request, AsyncRequestBody body) {
        return s3.uploadPart(request, body).thenApply(UploadPartResponse::eTag);
    }

    @Override
    public CompletableFuture<CompleteMultipartUploadResponse> completeMultipartUpload(
            CompleteMultipartUploadRequest request) {
        return s3.completeMultipartUpload(request);
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(String bucket, String key, String uploadId) {
        return s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)).thenApply(response -> null);
    }
}
