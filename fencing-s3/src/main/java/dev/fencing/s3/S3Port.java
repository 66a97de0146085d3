package dev.fencing.s3;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * The S3 requests the fenced writes need, over either SDK client, so the algorithm is written once
 * ({@link FencedWrites}). The synchronous client's answers arrive as already-completed futures.
 *
 * @param <B> the client's request body type
 */
interface S3Port<B> {

    B bytes(byte[] content);

    /** {@code length} bytes of {@code file} from {@code offset}, re-readable for the SDK's retries. */
    B filePart(Path file, long offset, long length);

    CompletableFuture<HeadObjectResponse> head(String bucket, String key);

    CompletableFuture<ResponseBytes<GetObjectResponse>> get(String bucket, String key);

    CompletableFuture<PutObjectResponse> put(PutObjectRequest request, B body);

    CompletableFuture<Void> delete(String bucket, String key);

    CompletableFuture<String> createMultipartUpload(CreateMultipartUploadRequest request);

    /** Uploads a part; answers its ETag. */
    CompletableFuture<String> uploadPart(UploadPartRequest request, B body);

    CompletableFuture<CompleteMultipartUploadResponse> completeMultipartUpload(CompleteMultipartUploadRequest request);

    CompletableFuture<Void> abortMultipartUpload(String bucket, String key, String uploadId);
}
