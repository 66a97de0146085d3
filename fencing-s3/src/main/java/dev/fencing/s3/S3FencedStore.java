package dev.fencing.s3;

import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingListener;
import dev.fencing.core.FencingToken;
import dev.fencing.core.ForeignTokenException;
import dev.fencing.core.Policy;
import dev.fencing.core.StaleTokenException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StoreBuilder;
import dev.fencing.core.spi.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The common {@link FencedStore} on an S3 bucket: one object per key (under an optional prefix),
 * the token in metadata, the ETag as the version. The body is the value behind a one-line header
 * with the token and a random write id ({@code fencing-store/1 token=42 write=9f0c…}), so every
 * write's bytes, and so its ETag, are unique — two holders storing the same value are still told
 * apart. {@link #load} strips the header. Writes and deletes go through {@link FencedS3}
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
public final class S3FencedStore implements StorageAccessor<String> {

    private final S3Client s3;
    private final FencedS3 fenced;
    private final String bucket;
    private final String prefix;

    private S3FencedStore(S3Client s3, FencedS3 fenced, String bucket, String prefix) {
        this.s3 = s3;
        this.fenced = fenced;
        this.bucket = bucket;
        this.prefix = prefix;
    }

    /** A store on {@code bucket}, keys as object keys, under {@link Policy#MONOTONIC}, reporting to no listener. */
    public static FencedStore create(S3Client s3, String bucket) {
        return builder(s3, bucket).build();
    }

    /**
     * A store on {@code bucket} with object keys {@code prefix + key}.
     *
     * @deprecated use {@code builder(s3, bucket).prefix(prefix).policy(policy).listener(listener).build()},
     *     which names each setting and checks it
     */
    @Deprecated(since = "0.1.0")
    public static FencedStore create(S3Client s3, String bucket, String prefix, Policy policy, FencingListener listener) {
        return builder(s3, bucket).prefix(prefix).policy(policy).listener(listener).build();
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

    @Override
    public Optional<Snapshot<String>> load(String key) {
        try {
            ResponseBytes<GetObjectResponse> object = s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + key));
            ObjectState state = ObjectState.of(object.response().eTag(), object.response().metadata());
            return Optional.of(new Snapshot<>(state.tombstone() ? null : StoreEnvelope.decode(object.asByteArray()),
                    state.token().orElse(0), state.resource(), Objects.requireNonNull(state.etag(), "S3 answers every GET with an ETag")));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            throw (RuntimeException) S3Errors.translate(e, bucket);
        }
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        try {
            if (value == null) {
                fenced.deleteObject(token, bucket, prefix + key);
            } else {
                fenced.putObject(token, request(key), RequestBody.fromBytes(StoreEnvelope.encode(token.value(),
                        OwnerIds.random(), value)));
            }
            return WriteOutcome.written();
        } catch (StaleTokenException e) {
            return WriteOutcome.stale(e.highWaterMark());
        } catch (ForeignTokenException e) {
            return WriteOutcome.foreign(e.boundResource());
        }
    }

    @Override
    public WriteOutcome writeIfUnchanged(String key, @Nullable Snapshot<String> expected, String value, FencingToken token,
            Policy policy) {
        if (expected != null && expected.fencedByAnotherLockThan(token)) {
            return WriteOutcome.foreign(Objects.requireNonNull(expected.resource()));
        }
        if (expected != null && !policy.accepts(token.value(), expected.token())) {
            return WriteOutcome.stale(expected.token());
        }
        String writeId = OwnerIds.random();
        Map<String, String> metadata = Metadata.fenced(Map.of(), token, writeId);
        PutObjectRequest conditional = request(key).toBuilder().metadata(metadata)
                .ifMatch(expected == null ? null : expected.version())
                .ifNoneMatch(expected == null ? "*" : null)
                .overrideConfiguration(BlindRetries.off(Optional.empty())).build();
        try {
            s3.putObject(conditional, RequestBody.fromBytes(StoreEnvelope.encode(token.value(), writeId, value)));
            return WriteOutcome.written();
        } catch (RuntimeException e) {
            if (BlindRetries.unclear(e)) { // the reply was lost: did this very write land?
                if (landed(key, writeId, e)) {
                    return WriteOutcome.written();
                }
                throw WriteOutcomeUnknownException.of(prefix + key, e);
            }
            if (!(e instanceof S3Exception s3e)) {
                throw e;
            }
            return switch (S3Errors.classify(s3e)) {
                // the item changed — unless the change is this very write, re-sent below the SDK after a lost
                // reply (the JDK's HttpURLConnection re-sends a non-streamed PUT on its own)
                case CHANGED -> landed(key, writeId, e) ? WriteOutcome.written() : WriteOutcome.conflict();
                case NO_SUCH_BUCKET -> throw (RuntimeException) S3Errors.translate(s3e, bucket);
                default -> throw s3e;
            };
        }
    }

    private boolean landed(String key, String writeId, RuntimeException unclear) {
        try {
            HeadObjectResponse head = s3.headObject(r -> r.bucket(bucket).key(prefix + key));
            return ObjectState.of(head.eTag(), head.metadata()).madeBy(writeId);
        } catch (RuntimeException e) {
            if (!S3Errors.isNotFound(e)) {
                unclear.addSuppressed(e);
            }
            return false;
        }
    }

    private PutObjectRequest request(String key) {
        return PutObjectRequest.builder().bucket(bucket).key(prefix + key).contentType("text/plain; charset=utf-8").build();
    }

    /** Configures an {@link S3FencedStore}; every setting but the client and the bucket is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        /** Object keys are at most this many bytes of UTF-8, the prefix's included. */
        private static final int MAX_KEY_BYTES = 1024;

        private final S3Client s3;
        private final String bucket;
        private String prefix = "";
        private Duration requestTimeout = BoundedS3.DEFAULT_REQUEST_TIMEOUT;

        private Builder(S3Client s3, String bucket) {
            this.s3 = s3;
            this.bucket = bucket;
        }

        /**
         * What every object key starts with: the store keeps {@code key} at {@code prefix + key}.
         * Default none; at most 1023 bytes of UTF-8, so that a key fits in S3's 1024.
         */
        public Builder prefix(String prefix) {
            Checks.requireNonNull("prefix", prefix);
            int bytes = prefix.getBytes(StandardCharsets.UTF_8).length;
            if (bytes >= MAX_KEY_BYTES) {
                throw new IllegalArgumentException("prefix must be at most " + (MAX_KEY_BYTES - 1) + " bytes of UTF-8"
                        + " (an object key, prefix included, is at most " + MAX_KEY_BYTES + "), got " + bytes
                        + " bytes starting '" + prefix.substring(0, 32) + "…'");
            }
            this.prefix = prefix;
            return this;
        }

        /**
         * How long each request of the store may take, 100 ms to 1 h; default 10 s (see
         * {@link FencedS3.Builder#requestTimeout}).
         */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = Checks.requireBetween("requestTimeout", requestTimeout, Duration.ofMillis(100),
                    Duration.ofHours(1));
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
            return storeOver(new S3FencedStore(bounded, fenced, bucket, prefix));
        }
    }
}
