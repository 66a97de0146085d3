package dev.fencing.s3;

import dev.fencing.core.Policy;

/**
 * The settings both fenced S3 wrappers share; {@link FencedS3.Builder} and
 * {@link FencedS3Async.Builder} add only their client and {@code build()}.
 *
 * @param <T> the concrete builder, returned by every setter
 */
abstract class WriterBuilder<T extends WriterBuilder<T>> {

    private Settings settings = Settings.defaults();

    abstract T self();

    Settings settings() {
        return settings;
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
