package dev.fencing.azure.blob;

import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobStorageException;
import dev.fencing.core.spi.FailedWrite;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The one place Azure errors are read.
 *
 * <table>
 *   <caption>What an Azure answer means to a fenced write</caption>
 *   <tr><th>answer</th><th>meaning</th><th>what the writer does</th></tr>
 *   <tr><td>412 ConditionNotMet, 409 BlobAlreadyExists, 404 BlobNotFound</td>
 *       <td>the blob changed or vanished since it was looked at</td>
 *       <td>looks again: its own write (same write id) means done; else re-check the token, retry</td></tr>
 *   <tr><td>404 ContainerNotFound</td><td>no container</td>
 *       <td>{@link BlobStorageException} naming the container</td></tr>
 *   <tr><td>no answer (timeout, dropped connection), or 5xx</td><td>the write may have landed</td>
 *       <td>looks again: its own write id means written; else {@code WriteOutcomeUnknownException}</td></tr>
 *   <tr><td>anything else (a refused connection, 403, 400, a 412 for a blob under an Azure lease)</td><td>not applied, not the fence's business</td>
 *       <td>passed through unchanged</td></tr>
 * </table>
 */
final class BlobErrors {

    /** What a failure means to a fenced write. */
    enum Kind {
        CHANGED,
        NO_CONTAINER,
        UNCLEAR,
        OTHER
    }

    /** The codes of a refused condition; another 412 or 409 (a blob under an Azure lease: LeaseIdMissing) is passed on. */
    private static final Set<BlobErrorCode> CHANGED = Set.of(BlobErrorCode.CONDITION_NOT_MET,
            BlobErrorCode.BLOB_ALREADY_EXISTS, BlobErrorCode.BLOB_NOT_FOUND);

    private BlobErrors() {}

    static Kind classify(RuntimeException failure) {
        if (failure instanceof BlobStorageException e) {
            if (BlobErrorCode.CONTAINER_NOT_FOUND.equals(e.getErrorCode())) {
                return Kind.NO_CONTAINER;
            }
            int status = e.getStatusCode();
            if ((status == 412 || status == 409 || status == 404) && (e.getErrorCode() == null || CHANGED.contains(e.getErrorCode()))) {
                return Kind.CHANGED;
            }
            return FailedWrite.answered(status, false).mayHaveBeenApplied() ? Kind.UNCLEAR : Kind.OTHER;
        }
        return FailedWrite.withoutReply(failure).mayHaveBeenApplied() ? Kind.UNCLEAR : Kind.OTHER;
    }

    /**
     * Whether {@code failure} is the SDK's "no reply": a timeout (the call's bound surfaces as an
     * {@link IllegalStateException} "Timeout on blocking read" or a wrapped {@link TimeoutException})
     * or an I/O failure — not an answer of the service.
     */
    static boolean unanswered(RuntimeException failure) {
        if (failure instanceof BlobStorageException) {
            return false;
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof TimeoutException || cause instanceof IOException
                    || cause instanceof IllegalStateException && String.valueOf(cause.getMessage())
                            .startsWith("Timeout on blocking read")) {
                return true;
            }
        }
        return false;
    }

    /** Whether a read found no blob (the container exists). */
    static boolean isBlobNotFound(RuntimeException failure) {
        return failure instanceof BlobStorageException e && e.getStatusCode() == 404
                && !BlobErrorCode.CONTAINER_NOT_FOUND.equals(e.getErrorCode());
    }

    /** The failure as the caller should see it: a missing container named, anything else unchanged. */
    static RuntimeException translate(RuntimeException failure, String containerUrl) {
        if (failure instanceof BlobStorageException e && BlobErrorCode.CONTAINER_NOT_FOUND.equals(e.getErrorCode())) {
            BlobStorageException named = new BlobStorageException("container '" + containerUrl + "' does not exist:"
                    + " create it before writing fenced blobs to it", e.getResponse(), e.getValue());
            named.initCause(e);
            return named;
        }
        return failure;
    }
}
