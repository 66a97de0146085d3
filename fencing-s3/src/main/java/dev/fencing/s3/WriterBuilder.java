package dev.fencing.s3;

import dev.fencing.aws.internal.RequestBounds;
import dev.fencing.core.FencingListener;
import dev.fencing.core.Policy;
import dev.fencing.core.internal.Checks;
import java.time.Duration;

/**
 * The settings both fenced S3 wrappers share; {@link FencedS3.Builder} and
 * {@link FencedS3Async.Builder} add only their client and {@code build()}.
 *
 * @param <T> the concrete builder, returned by every setter
 */
abstract class WriterBuilder<T extends WriterBuilder<T>> {

    private Settings settings = Settings.defaults();
    private Duration requestTimeout = BoundedS3.DEFAULT_REQUEST_TIMEOUT;
    private FencingListener listener = FencingListener.NONE;

    abstract T self();

    Settings settings() {
        return settings;
    }

    Duration requestTimeout() {
        return requestTimeout;
    }

    FencingListener listener() {
        return listener;
    }

    /**
     * Where every write's ending is reported: {@link FencingListener#onWriteAccepted},
     * {@link FencingListener#onStaleWriteRejected} (a refusal is also logged at WARN whatever the
     * listener) or {@link FencingListener#onWriteFailed}. Default: none.
     */
    public T listener(FencingListener listener) {
        this.listener = Checks.requireNonNull("listener", listener);
        return self();
    }

    /**
     * How long each S3 request of the wrapper may take, the SDK's retries included; default 10 s,
     * 100 ms to 1 h. Set on every request as its {@code apiCallTimeout} and
     * {@code apiCallAttemptTimeout}, unless the client or your request sets a shorter one, which is
     * kept. An S3 that accepts the connection and never answers makes the call fail within it with
     * an {@link software.amazon.awssdk.core.exception.SdkClientException} naming the endpoint, the
     * bucket and the bound (a write whose reply is lost this way is looked up, then reported as
     * {@link dev.fencing.core.WriteOutcomeUnknownException} with that cause). It bounds the transfer
     * of a body too: raise it for objects or parts that take longer to upload or download.
     */
    public T requestTimeout(Duration requestTimeout) {
        this.requestTimeout = RequestBounds.check(requestTimeout);
        return self();
    }

    /** How objects are laid out; default {@link S3Layout#POINTER}, sound for every body. */
    public T layout(S3Layout layout) {
        settings = settings.withLayout(layout);
        return self();
    }

    /**
     * Where {@link S3Layout#POINTER} keeps data objects: {@code <dataPrefix><key>/<token>-<write id>};
     * default {@code .fencing-data/}. Every writer of a bucket must use the same one.
     */
    public T dataPrefix(String dataPrefix) {
        settings = settings.withDataPrefix(dataPrefix);
        return self();
    }

    /** The policy; default {@link Policy#MONOTONIC}. */
    public T policy(Policy policy) {
        settings = settings.withPolicy(policy);
        return self();
    }

    /** Conditional requests tried before giving up on a key that keeps changing; 1 to 100, default 5. */
    public T maxAttempts(int maxAttempts) {
        settings = settings.withMaxAttempts(maxAttempts);
        return self();
    }

    /** Keys whose ETag and token this writer remembers; 0 turns the cache off (always HEAD first). Default 10,000. */
    public T etagCacheSize(int cacheSize) {
        settings = settings.withEtagCacheSize(cacheSize);
        return self();
    }
}
