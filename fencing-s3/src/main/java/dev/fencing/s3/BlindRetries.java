package dev.fencing.s3;

import dev.fencing.core.spi.FailedWrite;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
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
 * {@link dev.fencing.core.WriteOutcomeUnknownException}. Which failures are unclear and which may be
 * sent again is core's {@link FailedWrite}, the rule DynamoDB and JDBC follow too; only the mapping
 * of the SDK's exceptions onto it ({@link #verdict}) is here.
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
     * Whether {@code failure} leaves a write's effect unclear: core's {@link FailedWrite} rule on
     * what the SDK saw of the reply ({@link #verdict}), a {@code CompletionException} unwrapped.
     */
    static boolean unclear(Throwable failure) {
        FailedWrite verdict = verdict(S3Errors.unwrap(failure));
        return verdict != null && verdict.mayHaveBeenApplied();
    }

    static boolean provablyNotApplied(Throwable failure) {
        FailedWrite verdict = verdict(failure);
        return (verdict != null ? verdict : FailedWrite.withoutReply(failure)).safeToSendAgain();
    }

    /**
     * The SDK's failure in core's terms: a service exception is an answer with its status (and the
     * SDK's throttling verdict), a client exception is no reply; null for anything else (the
     * caller's own code failed), which is neither unclear nor sent again unless its connection was
     * refused.
     */
    static @Nullable FailedWrite verdict(Throwable failure) {
        if (failure instanceof AwsServiceException service) {
            return FailedWrite.answered(service.statusCode(), service.isThrottlingException());
        }
        if (failure instanceof SdkServiceException service) {
            return FailedWrite.answered(service.statusCode(), false);
        }
        return failure instanceof SdkClientException ? FailedWrite.withoutReply(failure) : null;
    }
}
