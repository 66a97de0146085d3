package dev.fencing.dynamodb;

import dev.fencing.core.spi.FailedWrite;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What a fenced write does about a lost reply. The SDK retries a failed attempt on its own; for a
 * conditional write whose first attempt landed but whose reply was lost, the retry either fails
 * its condition (the toolkit would call the holder's own write stale, or re-apply an update) or
 * passes it and applies the change a second time. So a fenced write is sent with a retry strategy
 * that retries only what provably did not reach the server or was refused before acting (a refused
 * connection, a throttle), and carries a random write id in {@link #ATTRIBUTE}; after an unclear
 * failure a consistent read tells "landed" (the item carries the id) from "unknown". Which failures
 * are unclear and which may be sent again is core's {@link FailedWrite}, the rule S3 and JDBC
 * follow too; only the mapping of the SDK's exceptions onto it ({@link #verdict}) is here.
 */
final class LostReplies {

    /** The attribute holding the id of the fenced write that last wrote the item. */
    static final String ATTRIBUTE = "fencing_write";

    private static final SecureRandom RANDOM = new SecureRandom();

    private static final RetryStrategy ONLY_UNSENT = DefaultRetryStrategy.standardStrategyBuilder()
            .retryOnException(LostReplies::provablyNotApplied)
            .maxAttempts(3)
            .build();

    private static final SdkPlugin NO_BLIND_RETRY = config -> config.overrideConfiguration(
            override -> override.retryStrategy(ONLY_UNSENT));

    private LostReplies() {}

    /** A new 128-bit write id, in hex. */
    static String newWriteId() {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /** The caller's override configuration with the fenced write's retry strategy added. */
    static AwsRequestOverrideConfiguration withoutBlindRetries(Optional<AwsRequestOverrideConfiguration> callers) {
        return callers.map(AwsRequestOverrideConfiguration::toBuilder)
                .orElseGet(AwsRequestOverrideConfiguration::builder)
                .addPlugin(NO_BLIND_RETRY)
                .build();
    }

    /**
     * Whether {@code failure} of a fenced write leaves its effect unclear: core's
     * {@link FailedWrite} rule on what the SDK saw of the reply ({@link #verdict}).
     */
    static boolean unclear(Throwable failure) {
        FailedWrite verdict = verdict(failure);
        return verdict != null && verdict.mayHaveBeenApplied();
    }

    /** Whether {@code item} was last written by the fenced write {@code writeId}. */
    static boolean carries(Map<String, AttributeValue> item, String writeId) {
        AttributeValue stored = item == null ? null : item.get(ATTRIBUTE);
        return stored != null && writeId.equals(stored.s());
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
