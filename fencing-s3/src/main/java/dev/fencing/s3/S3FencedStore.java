package dev.fencing.s3;

import dev.fencing.aws.internal.AwsReplies;
import dev.fencing.aws.internal.RequestBounds;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.StoreBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The common {@link FencedStore} on an S3 bucket: one object per key (under an optional prefix),
 * the token in metadata, the ETag as the version. The body is the value behind a one-line header
 * with the token and a random write id ({@code fencing-store/1 token=42 write=9f0c…}), so every
 * write's bytes, and so its ETag, are unique — two holders storing the same value are still told
 * apart. Reads strip the header. Writes and deletes go through {@link FencedS3}
 * ({@link S3Layout#IN_PLACE}, sound here because the bytes are unique); a read-modify-write puts
 * with {@code If-Match} on the ETag it read (or {@code If-None-Match: *}), so a write landing in
 * between is never overwritten. Requests: a write is HEAD + PUT (PUT alone when this store wrote
 * the key last), an update GET + PUT.
 *
 * <p>Other S3 readers (Athena, Spark, the console) see each object under the prefix as the header
 * line followed by the value's bytes, and a deleted key as a small {@code fencing-tombstone/1} text
 * object: a CSV or JSON-lines table over the prefix reads one malformed row per object. The store
 * writes in place (no pointer, no data prefix), so there are no data objects to clean up.
 *
 * <p>Lost replies: the conditional PUT is sent without the SDK's blind retries. When its reply is
 * lost, a HEAD decides: the object carries this write's id → written; otherwise
 * {@link WriteOutcomeUnknownException} (applied at most once; re-read before deciding) — never a
 * second application of an update. Thread-safe.
 */
public final class S3FencedStore {

    private S3FencedStore() {}

    /** A store on {@code bucket}, keys as object keys, under {@link Policy#MONOTONIC}, reporting to no listener. */
    public static FencedStore create(S3Client s3, String bucket) {
        return builder(s3, bucket).build();
    }

    /**
     * A builder for a store on {@code bucket} through {@code s3}: keys as object keys (no prefix),
     * {@link Policy#MONOTONIC}, requests bounded by 10 s and no listener unless set.
     *
     * @throws IllegalArgumentException if {@code s3} is null or {@code bucket} is blank, longer than
     *     256 characters or holds control characters, naming it
     */
    public static Builder builder(S3Client s3, String bucket) {
        return new Builder(Checks.requireNonNull("s3", s3), Checks.requireName("bucket", bucket));
    }

    /** Configures an {@link S3FencedStore}; every setting but the client and the bucket is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        /** Object keys are at most this many bytes of UTF-8, the prefix's included. */
        private static final int MAX_KEY_BYTES = 1024;

        private final S3Client s3;
        private final String bucket;
        private String keyPrefix = "";
        private Duration requestTimeout = BoundedS3.DEFAULT_REQUEST_TIMEOUT;

        private Builder(S3Client s3, String bucket) {
            this.s3 = s3;
            this.bucket = bucket;
        }

        /**
         * What every object key starts with: the store keeps {@code key} at {@code keyPrefix + key}.
         * Default none; at most 1023 bytes of UTF-8, so that a key fits in S3's 1024.
         */
        public Builder keyPrefix(String keyPrefix) {
            Checks.requireNonNull("keyPrefix", keyPrefix);
            int bytes = keyPrefix.getBytes(StandardCharsets.UTF_8).length;
            if (bytes >= MAX_KEY_BYTES) {
                throw new IllegalArgumentException("keyPrefix must be at most " + (MAX_KEY_BYTES - 1) + " bytes of UTF-8"
                        + " (an object key, prefix included, is at most " + MAX_KEY_BYTES + "), got " + bytes
                        + " bytes starting '" + keyPrefix.substring(0, 32) + "…'");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * How long each request of the store may take, 100 ms to 1 h; default 10 s (see
         * {@link FencedS3.Builder#requestTimeout}).
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = RequestBounds.check(requestTimeout);
            return this;
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** The store. Sends no request: the bucket must exist (a write to a missing one names it). */
        @Override
        public FencedStore build() {
            S3Client bounded = BoundedS3.wrap(s3, requestTimeout);
            FencedS3 fenced = FencedS3.builder(bounded).layout(S3Layout.IN_PLACE).policy(policy)
                    .requestTimeout(requestTimeout).build();
            return storeOver(new S3StorageAccessor(bounded, fenced, bucket, keyPrefix,
                    AwsReplies.server("S3", s3.serviceClientConfiguration())));
        }
    }
}
