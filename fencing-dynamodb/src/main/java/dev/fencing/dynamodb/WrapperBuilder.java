package dev.fencing.dynamodb;

import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;
import java.time.Duration;

/**
 * The settings both fenced DynamoDB wrappers share; {@link FencedDynamoDb.Builder} and
 * {@link FencedDynamoDbAsync.Builder} add only their client and {@code build()}.
 *
 * @param <B> the concrete builder, returned by every setter
 */
abstract class WrapperBuilder<B extends WrapperBuilder<B>> {

    private String tokenAttribute = FencedDynamoDb.DEFAULT_TOKEN_ATTRIBUTE;
    private String tombstoneAttribute = FencedDynamoDb.DEFAULT_TOMBSTONE_ATTRIBUTE;
    private Policy policy = Policy.MONOTONIC;
    private Duration requestTimeout = BoundedDynamoDb.DEFAULT_REQUEST_TIMEOUT;
    private FencingListener listener = FencingListener.NONE;

    abstract B self();

    /**
     * The attribute holding the token; default {@code fencing_token}. Any name of 1 to 255 bytes
     * without control characters: it is always a placeholder. Beans read by the enhanced client must
     * then say {@code @DynamoDbFencingToken(attributeName = "...")} with the same name.
     */
    public B tokenAttribute(String tokenAttribute) {
        this.tokenAttribute = Attributes.requireName("tokenAttribute", tokenAttribute);
        return self();
    }

    /** The attribute marking a tombstone; default {@code fencing_deleted}, 1 to 255 bytes without control characters. */
    public B tombstoneAttribute(String tombstoneAttribute) {
        this.tombstoneAttribute = Attributes.requireName("tombstoneAttribute", tombstoneAttribute);
        return self();
    }

    /** The policy; default {@link Policy#MONOTONIC}. */
    public B policy(Policy policy) {
        this.policy = Checks.requireNonNull("policy", policy);
        return self();
    }

    /**
     * How long each DynamoDB request of the wrapper may take, the SDK's retries included; default
     * 10 s, 100 ms to 1 h. Set on every request the wrapper sends as its {@code apiCallTimeout}
     * and {@code apiCallAttemptTimeout}, unless the client or your request sets a shorter one,
     * which is kept. A DynamoDB that accepts the connection and never answers makes the call fail
     * within it with an {@link software.amazon.awssdk.core.exception.SdkClientException} naming the
     * endpoint, the operation, the table and the bound. A write whose reply is lost is looked up
     * with one consistent read (bounded too) and then reported as
     * {@link dev.fencing.core.WriteOutcomeUnknownException}: up to twice the bound in all.
     */
    public B requestTimeout(Duration requestTimeout) {
        this.requestTimeout = BoundedDynamoDb.check(requestTimeout);
        return self();
    }

    /**
     * Where every refused write ({@link FencingListener#onStaleWriteRejected}; also logged at WARN
     * whatever the listener) and every write refused as fenced by another lock
     * ({@link FencingListener#onWriteFailed}) is reported. Default: none.
     */
    public B listener(FencingListener listener) {
        this.listener = Checks.requireNonNull("listener", listener);
        return self();
    }

    /** The request fencer of these settings; refuses a token attribute that is also the tombstone's, or a reserved one. */
    RequestFencer fencer() {
        return new RequestFencer(tokenAttribute, tombstoneAttribute, policy, listener);
    }

    Duration requestTimeout() {
        return requestTimeout;
    }
}
