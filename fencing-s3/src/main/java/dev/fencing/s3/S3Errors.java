package dev.fencing.s3;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The one place S3 errors are read, for every path.
 *
 * <table>
 *   <caption>What an S3 error means to a fenced write</caption>
 *   <tr><th>answer</th><th>meaning</th><th>what the writer does</th></tr>
 *   <tr><td>412 PreconditionFailed, 409 ConditionalRequestConflict, 404 on {@code If-Match}</td>
 *       <td>the object changed or vanished since it was looked at</td>
 *       <td>looks again: its own write (same write id) means done; else re-check the token, retry</td></tr>
 *   <tr><td>404 NoSuchBucket</td><td>no bucket</td><td>{@link NoSuchBucketException} naming it</td></tr>
 *   <tr><td>anything else</td><td>not the fence's business</td><td>passed through unchanged</td></tr>
 * </table>
 */
final class S3Errors {

    /** What an S3 error means to a fenced write. */
    enum Kind {
        CHANGED,
        NO_SUCH_BUCKET,
        OTHER
    }

    private S3Errors() {}

    static Kind classify(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (!(cause instanceof S3Exception e)) {
            return Kind.OTHER;
        }
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        if (cause instanceof NoSuchBucketException || "NoSuchBucket".equals(code)) {
            return Kind.NO_SUCH_BUCKET;
        }
        if (e.statusCode() == 412 || e.statusCode() == 409 || (e.statusCode() == 404 && !"NoSuchUpload".equals(code))) {
            return Kind.CHANGED;
        }
        return Kind.OTHER;
    }

    /** Whether {@code failure} is a 404 of a read: no such key (or, for a HEAD, possibly no bucket). */
    static boolean isNotFound(Throwable failure) {
        return unwrap(failure) instanceof S3Exception e && e.statusCode() == 404 && classify(e) != Kind.NO_SUCH_BUCKET;
    }

    /** The failure as the caller should see it: a missing bucket named, anything else unchanged. */
    static Throwable translate(Throwable failure, String bucket) {
        Throwable cause = unwrap(failure);
        if (classify(cause) == Kind.NO_SUCH_BUCKET && !String.valueOf(cause.getMessage()).contains("'" + bucket + "'")) {
            S3Exception e = (S3Exception) cause;
            return NoSuchBucketException.builder()
                    .message("bucket '" + bucket + "' does not exist: create it (CreateBucket) before writing fenced"
                            + " objects to it")
                    .statusCode(e.statusCode()).awsErrorDetails(e.awsErrorDetails()).requestId(e.requestId())
                    .cause(e).build();
        }
        return cause;
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** Rethrows the cause of a failed future as the synchronous API would have thrown it. */
    static RuntimeException rethrow(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw new CompletionException(cause);
    }
}
