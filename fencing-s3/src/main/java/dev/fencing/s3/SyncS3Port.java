package dev.fencing.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/** {@link S3Port} over the synchronous {@link S3Client}: each call runs in the caller's thread. */
final class SyncS3Port implements S3Port<RequestBody> {

    private final S3Client s3;

    SyncS3Port(S3Client s3) {
        this.s3 = s3;
    }

    @Override
    public RequestBody bytes(byte[] content) {
        return RequestBody.fromBytes(content);
    }

    @Override
    public RequestBody filePart(Path file, long offset, long length) {
        return RequestBody.fromContentProvider(() -> open(file, offset, length), length, "application/octet-stream");
    }

    @Override
    public CompletableFuture<HeadObjectResponse> head(String bucket, String key) {
        return call(() -> s3.headObject(r -> r.bucket(bucket).key(key)));
    }

    @Override
    public CompletableFuture<ResponseBytes<GetObjectResponse>> get(String bucket, String key) {
        return call(() -> s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)));
    }

    @Override
    public CompletableFuture<PutObjectResponse> put(PutObjectRequest request, RequestBody body) {
        return call(() -> s3.putObject(request, body));
    }

    @Override
    public CompletableFuture<Void> delete(String bucket, String key) {
        return call(() -> {
            s3.deleteObject(r -> r.bucket(bucket).key(key));
            return null;
        });
    }

    @Override
    public CompletableFuture<String> createMultipartUpload(CreateMultipartUploadRequest request) {
        return call(() -> s3.createMultipartUpload(request).uploadId());
    }

    @Override
    public CompletableFuture<String> uploadPart(UploadPartRequest request, RequestBody body) {
        return call(() -> s3.uploadPart(request, body).eTag());
    }

    @Override
    public CompletableFuture<CompleteMultipartUploadResponse> completeMultipartUpload(
            CompleteMultipartUploadRequest request) {
        return call(() -> s3.completeMultipartUpload(request));
    }

    @Override
    public CompletableFuture<Void> abortMultipartUpload(String bucket, String key, String uploadId) {
        return call(() -> {
            s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
            return null;
        });
    }

    private static <T> CompletableFuture<T> call(Supplier<T> request) {
        try {
            return CompletableFuture.completedFuture(request.get());
        } catch (RuntimeException | Error e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static InputStream open(Path file, long offset, long length) {
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ).position(offset);
            return new BoundedInputStream(Channels.newInputStream(channel), length);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** At most {@code remaining} bytes of {@code in}. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long remaining;

        BoundedInputStream(InputStream in, long remaining) {
            this.in = in;
            this.remaining = remaining;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                remaining--;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (remaining <= 0) {
                return -1;
            }
            int read = in.read(buffer, offset, (int) Math.min(length, remaining));
            if (read > 0) {
                remaining -= read;
            }
            return read;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
