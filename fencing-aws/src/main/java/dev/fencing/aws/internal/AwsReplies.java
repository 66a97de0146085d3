package dev.fencing.aws.internal;

import dev.fencing.core.spi.FailedWrite;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.AwsServiceClientConfiguration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;

/**
 * What a fenced write on the AWS SDK does about a lost reply. The SDK retries a failed attempt on
 * its own; for a conditional write whose first attempt landed but whose reply was lost, the retry
 * either fails its condition (the holder's own write called stale, an update re-applied) or passes
 * it and applies the change a second time. So a fenced write is sent {@link #withoutBlindRetries}:
 * it retries only what provably did not reach the server or was refused before acting (a refused
 * connection, a throttle), and carries a random write id ({@link #newWriteId}); after an
 * {@link #unclear} failure a read tells "landed" from "unknown". Which failures are unclear and
 * which may be sent again is core's {@link FailedWrite}; only the mapping of the SDK's exceptions
 * onto it ({@link #verdict}) is here. The DynamoDB and S3 stores use it alike.
 */
public final class AwsReplies {

    private static final SecureRandom RANDOM = new SecureRandom();

    private static final RetryStrategy ONLY_UNSENT = DefaultRetryStrategy.standardStrategyBuilder()
            .retryOnException(AwsReplies::provablyNotApplied)
            .maxAttempts(3)
            .build();

    private static final SdkPlugin NO_BLIND_RETRY = config -> config.overrideConfiguration(
            override -> override.retryStrategy(ONLY_UNSENT));

    private AwsReplies() {}

    /** A new 128-bit write id, in hex. */
    public static String newWriteId() {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /** The caller's override configuration with the fenced write's retry strategy added. */
    public static AwsRequestOverrideConfiguration withoutBlindRetries(Optional<AwsRequestOverrideConfiguration> callers) {
        return callers.map(AwsRequestOverrideConfiguration::toBuilder)
                .orElseGet(AwsRequestOverrideConfiguration::builder)
                .addPlugin(NO_BLIND_RETRY)
                .build();
    }

    /**
     * Whether {@code failure} of a fenced write leaves its effect unclear: core's
     * {@link FailedWrite} rule on what the SDK saw of the reply ({@link #verdict}), a failed future's
     * wrapper unwrapped.
     */
    public static boolean unclear(Throwable failure) {
        FailedWrite verdict = verdict(unwrap(failure));
        return verdict != null && verdict.mayHaveBeenApplied();
    }

    /** Whether the SDK may send {@code failure}'s request again: it provably did not act. */
    public static boolean provablyNotApplied(Throwable failure) {
        FailedWrite verdict = verdict(failure);
        return (verdict != null ? verdict : FailedWrite.withoutReply(failure)).safeToSendAgain();
    }

    /**
     * The SDK's failure in core's terms: a service exception is an answer with its status (and the
     * SDK's throttling verdict), a client exception is no reply; null for anything else (the
     * caller's own code failed), which is neither unclear nor sent again unless its connection was
     * refused.
     */
    public static @Nullable FailedWrite verdict(Throwable failure) {
        if (failure instanceof AwsServiceException service) {
            return FailedWrite.answered(service.statusCode(), service.isThrottlingException());
        }
        if (failure instanceof SdkServiceException service) {
            return FailedWrite.answered(service.statusCode(), false);
        }
        return failure instanceof SdkClientException ? FailedWrite.withoutReply(failure) : null;
    }

    /**
     * Whether {@code failure} is the SDK's "no reply": a timeout (the request's bound, a socket
     * timeout) or an I/O failure (a refused or dropped connection) — not an answer of the service,
     * and not a client-side mistake (a missing region, an unmarshallable request).
     */
    public static boolean unanswered(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (!(cause instanceof SdkClientException)) {
            return false;
        }
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof ApiCallTimeoutException || c instanceof ApiCallAttemptTimeoutException
                    || c instanceof IOException || c instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** {@code service} and where its client sends requests, as messages name it: {@code "S3 at http://host:9090"}. */
    public static String server(String service, AwsServiceClientConfiguration client) {
        return service + " at " + client.endpointOverride().map(Object::toString).orElseGet(() -> "region " + client.region());
    }

    /** The failure a failed future wraps ({@link CompletionException}, {@link ExecutionException}), else {@code failure}. */
    public static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
