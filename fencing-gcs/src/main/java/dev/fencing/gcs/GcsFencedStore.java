package dev.fencing.gcs;

import com.google.cloud.storage.Storage;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.StoreUnavailableException;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.StoreBuilder;
import java.time.Duration;

/**
 * A {@link FencedStore} on a Google Cloud Storage bucket: one object per key (under an optional
 * prefix), the value as the object's bytes (UTF-8), the token in the object's metadata, the
 * generation as the version. GCS gives every write a new generation — identical bytes included —
 * so a precondition on the generation tells any two writes apart.
 *
 * <p>A write, and a delete, which writes a tombstone (an empty object whose metadata keeps the
 * token, so the mark never goes backwards):
 * <ol>
 *   <li>Read the object's metadata: generation, {@code fencing-token}, {@code fencing-lock},
 *       {@code fencing-write}, {@code fencing-deleted} (keys read in any case). Refuse a token the
 *       policy refuses against the stored one, or a key fenced by another lock's tokens.
 *   <li>Upload with {@code ifGenerationMatch} on that generation ({@code 0} for an absent key), with
 *       a fresh random write id in the metadata.
 *   <li>A failed precondition (412) means another write came in between: read again; an object
 *       carrying this write's id means it landed; otherwise decide again from step 1, at most
 *       {@value GcsStorageAccessor#WRITE_ATTEMPTS} uploads, then {@link ConcurrentUpdateException}.
 *   <li>The upload is sent once, without the client's own retries. When its reply is lost (a
 *       timeout, a dropped connection, a 5xx), read again: this write's id → written; otherwise
 *       {@link WriteOutcomeUnknownException} — never a second application.
 * </ol>
 * A read-modify-write uploads with {@code ifGenerationMatch} on the generation it read. Every
 * request is bounded by the builder's request timeout; a read that gets no answer, or an upload
 * that never reached GCS, is {@link StoreUnavailableException} (nothing written). Object names are
 * compared byte for byte: two keys are two objects. See docs/gcs.md. Thread-safe.
 */
public final class GcsFencedStore {

    private GcsFencedStore() {}

    /** A store on {@code bucket}, keys as object names, under {@link Policy#MONOTONIC}, reporting to no listener. */
    public static FencedStore create(Storage storage, String bucket) {
        return builder(storage, bucket).build();
    }

    /**
     * A builder for a store on {@code bucket} through {@code storage} (a client of the JSON API,
     * {@code StorageOptions.http()}, the default): keys as object names (no prefix),
     * {@link Policy#MONOTONIC}, requests bounded by 10 s and no listener unless set.
     *
     * @throws IllegalArgumentException if {@code storage} is null or a gRPC client, or {@code bucket}
     *     is blank, longer than 256 characters or holds control characters, naming it
     */
    public static Builder builder(Storage storage, String bucket) {
        return new Builder(Clients.requireHttp(Checks.requireNonNull("storage", storage)),
                Checks.requireName("bucket", bucket));
    }

    /** Configures a {@link GcsFencedStore}; every setting but the client and the bucket is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        private final Storage storage;
        private final String bucket;
        private String keyPrefix = "";
        private Duration requestTimeout = Duration.ofSeconds(10);

        private Builder(Storage storage, String bucket) {
            this.storage = storage;
            this.bucket = bucket;
        }

        /**
         * What every object name starts with: the store keeps {@code key} at {@code keyPrefix + key}.
         * Default none; at most 1023 bytes of UTF-8, so that a name fits in GCS's 1024; no carriage
         * return or line feed; not {@code .well-known/acme-challenge/}, which GCS refuses.
         *
         * @throws IllegalArgumentException if {@code keyPrefix} is null or breaks one of these rules, naming it
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = ObjectNames.requirePrefix(Checks.requireNonNull("keyPrefix", keyPrefix));
            return this;
        }

        /**
         * How long each request of the store may take, 100 ms to 1 h; default 10 s. A server that
         * does not answer fails a read within it ({@link StoreUnavailableException}), and a write
         * within about three times it (the metadata read, the upload, then the read that decides
         * whether it landed).
         *
         * @throws IllegalArgumentException if out of range, naming it
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
            return storeOver(new GcsStorageAccessor(Clients.bounded(storage, requestTimeout),
                    Clients.once(storage, requestTimeout), bucket, keyPrefix));
        }
    }
}
