package dev.fencing.gcs;

import com.google.cloud.storage.StorageException;
import dev.fencing.core.spi.FailedWrite;

/**
 * The one place GCS errors are read. The client wraps every failure in a
 * {@link StorageException}: an HTTP status in {@code getCode()}, or 0 and the I/O error as its
 * cause when no reply came.
 *
 * <table>
 *   <caption>What a GCS answer means to a fenced write</caption>
 *   <tr><th>answer</th><th>meaning</th><th>what the writer does</th></tr>
 *   <tr><td>412 (conditionNotMet)</td><td>the generation changed since it was looked at</td>
 *       <td>looks again: its own write (same write id) means done; else re-check the token, retry</td></tr>
 *   <tr><td>404 on an upload</td><td>no bucket (an upload creates the object)</td>
 *       <td>a {@link StorageException} naming the bucket</td></tr>
 *   <tr><td>no answer (a timeout, a dropped connection), 5xx</td><td>the write may have landed</td>
 *       <td>looks again: its own write id means written; else {@code WriteOutcomeUnknownException}</td></tr>
 *   <tr><td>a refused connection</td><td>the request never reached GCS</td>
 *       <td>{@code StoreUnavailableException}: nothing written</td></tr>
 *   <tr><td>anything else (403, 400, 429 …)</td><td>not applied, not the fence's business</td>
 *       <td>passed through unchanged</td></tr>
 * </table>
 */
final class GcsErrors {

    /** What a failure means to a fenced write. */
    enum Kind {
        CHANGED,
        NO_BUCKET,
        UNCLEAR,
        NOT_SENT,
        OTHER
    }

    private GcsErrors() {}

    /** What the failure of an upload means. */
    static Kind classifyUpload(RuntimeException failure) {
        if (!(failure instanceof StorageException e)) {
            return kind(FailedWrite.withoutReply(failure));
        }
        int status = e.getCode();
        if (status == 412) {
            return Kind.CHANGED;
        }
        if (status == 404) {
            return Kind.NO_BUCKET;
        }
        return kind(status <= 0 ? FailedWrite.withoutReply(e) : FailedWrite.answered(status, status == 429));
    }

    /** Whether a read failed without any answer from GCS (a timeout, a refused or dropped connection). */
    static boolean unanswered(RuntimeException failure) {
        return failure instanceof StorageException e && e.getCode() <= 0;
    }

    private static Kind kind(FailedWrite failed) {
        return switch (failed) {
            case UNCLEAR -> Kind.UNCLEAR;
            case NOT_SENT -> Kind.NOT_SENT;
            default -> Kind.OTHER;
        };
    }

    /** The failure of an upload to a missing bucket, naming it. */
    static StorageException noBucket(String bucket, StorageException cause) {
        return new StorageException(cause.getCode(), "bucket '" + bucket + "' does not exist: create it before"
                + " writing fenced objects to it", cause);
    }
}
