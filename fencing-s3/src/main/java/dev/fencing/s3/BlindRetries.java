package dev.fencing.s3;

import java.net.ConnectException;
import java.util.Optional;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;

/**
 * The fenced conditional request is sent without the SDK's blind retries. A retry of a request that
 * landed but whose reply was lost gets 412; if another writer of the same token wrote in between, the
 * object no longer shows this write's id and the writer would take the 412 for "not written" and
 * apply its change again. So only what provably did not reach the server (a refused connection) or
 * was refused before acting (a 4xx throttle) is retried; anything else unclear surfaces to
 * {@link FencedWrites}, which looks for its write id and otherwise reports
 * {@link dev.fencing.core.WriteOutcomeUnknownException}.
 */
final class BlindRetries {

    private static final RetryStrategy ONLY_UNSENT = DefaultRetryStrategy.standardStrategyBuilder()
            .retryOnException(BlindRetries::provablyNotApplied)
            .maxAttempts(3)
            .build();

    private static final SdkPlugin NONE = config -> config.overrideConfiguration(
            override -> override.retryStrategy(ONLY_UNSENT));

    private BlindRetries() {}

    /** The caller's override configuration with the fenced request's retry strategy. */
    static AwsRequestOverrideConfiguration off(Optional<AwsRequestOverrideConfiguration> callers) {
        return callers.map(AwsRequestOverrideConfiguration::toBuilder)
                .orElseGet(AwsRequestOverrideConfiguration::builder)
                .addPlugin(NONE)
                .build();
    }

    /**
     * Whether {@code failure} leaves a write's effect unclear: a client-side failure (timeout, dropped
     * connection, unreadable reply) other than a refused connection, or a 5xx answer.
     */
    static boolean unclear(Throwable failure) {
        Throwable cause = S3Errors.unwrap(failure);
        if (cause instanceof SdkClientException) {
            return !refusedConnection(cause);
        }
        return cause instanceof SdkServiceException service && service.statusCode() >= 500;
    }

    private static boolean provablyNotApplied(Throwable failure) {
        if (failure instanceof AwsServiceException service) {
            return service.isThrottlingException() && service.statusCode() < 500;
        }
        return refusedConnection(failure);
    }

    private static boolean refusedConnection(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }
}
