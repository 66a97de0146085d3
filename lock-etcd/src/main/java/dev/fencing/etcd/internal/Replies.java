package dev.fencing.etcd.internal;

import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Waiting for jetcd's futures, bounded, and telling a clear refusal from an unclear outcome.
 */
public final class Replies {

    private Replies() {}

    /** The outcome of a request that did not answer: it may or may not have been applied. */
    public static final class Unclear extends Exception {
        private static final long serialVersionUID = 1L;

        Unclear(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Waits up to {@code timeout} for {@code future}.
     *
     * @throws Unclear on a timeout or a failure of the call (the request may have been applied);
     *     the future is cancelled on a timeout
     * @throws InterruptedException if the thread is interrupted; the future is left running
     */
    public static <T> T await(CompletableFuture<T> future, Duration timeout) throws Unclear, InterruptedException {
        try {
            return future.get(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new Unclear("no answer within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new Unclear(String.valueOf(cause.getMessage()), cause);
        }
    }

    /** As {@link #await} but not cut short by an interrupt, which is kept for the caller. */
    public static <T> T awaitUninterruptibly(CompletableFuture<T> future, Duration timeout) throws Unclear {
        long end = System.nanoTime() + timeout.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return await(future, Duration.ofNanos(Math.max(1, end - System.nanoTime())));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether {@code failure} is etcd saying the lease does not exist (expired or revoked). */
    public static boolean isLeaseNotFound(@Nullable Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof EtcdException etcd && etcd.getErrorCode() == ErrorCode.NOT_FOUND) {
                return true;
            }
            if (String.valueOf(t.getMessage()).contains("requested lease not found")) {
                return true;
            }
        }
        return false;
    }
}
