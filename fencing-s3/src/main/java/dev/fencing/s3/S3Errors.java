package dev.fencing.s3;

import software.amazon.awssdk.services.s3.model.S3Exception;

/** The one place S3 errors are read, for both wrappers. */
final class S3Errors {

    /** What an S3 error means to a fenced write. */
    enum Kind {
        /** 412 PreconditionFailed, 409 ConditionalRequestConflict, or 404 NoSuchKey on If-Match: re-read and retry. */
        CHANGED,
        /** The bucket does not exist. */
        NO_SUCH_BUCKET,
        /** Anything else: passed through. */
        OTHER
    }

    private S3Errors() {}

    static Kind classify(Throwable failure) {
        if (!(failure instanceof S3Exception e)) {
            return Kind.OTHER;
        }
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        if ("NoSuchBucket".equals(code)) {
            return Kind.NO_SUCH_BUCKET;
        }
        if (e.statusCode() == 412 || e.statusCode() == 409 || (e.statusCode() == 404 && !"NoSuchUpload".equals(code))) {
            return Kind.CHANGED;
        }
        return Kind.OTHER;
    }

    static IllegalStateException noSuchBucket(String bucket, Throwable cause) {
        return new IllegalStateException("bucket '" + bucket + "' does not exist: create it (CreateBucket) before writing"
                + " fenced objects to it", cause);
    }
}
