package dev.fencing.azure.blob;

import com.azure.storage.blob.BlobContainerClient;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.StoreBuilder;
import java.time.Duration;

/**
 * A {@link FencedStore} on an Azure Blob Storage container: one block blob per key (under an
 * optional prefix), the value as the blob's bytes (UTF-8), the token in the blob's metadata, the
 * ETag as the version. Azure gives every write a new ETag — identical bytes included — so a
 * condition on the ETag tells any two writes apart.
 *
 * <p>A write, and a delete, which writes a tombstone (an empty blob whose metadata keeps the token,
 * so the mark never goes backwards):
 * <ol>
 *   <li>Read the blob's properties: ETag and metadata ({@code fencingtoken}, {@code fencinglock},
 *       {@code fencingwrite}, {@code fencingdeleted}; names read in any case). Refuse a token the
 *       policy refuses against the stored one, or a key fenced by another lock's tokens.
 *   <li>Upload with {@code If-Match} on that ETag ({@code If-None-Match: *} for an absent key),
 *       with a fresh random write id in the metadata.
 *   <li>A refused condition (412, 409) means another write came in between: read again; a blob
 *       carrying this write's id means it landed; otherwise decide again from step 1, at most
 *       {@value AzureBlobStorageAccessor#WRITE_ATTEMPTS} uploads, then {@link ConcurrentUpdateException}.
 *   <li>The upload is sent once, without the SDK's blind retries. When its reply is lost (a
 *       timeout, a dropped connection, a 5xx), read again: this write's id → written; otherwise
 *       {@link WriteOutcomeUnknownException} — never a second application.
 * </ol>
 * A read-modify-write uploads with {@code If-Match} on the ETag it read. Every request is bounded
 * by the builder's request timeout. Thread-safe.
 */
public final class AzureBlobFencedStore {

    private AzureBlobFencedStore() {}

    /** A store on {@code container}, keys as blob names, under {@link Policy#MONOTONIC}, reporting to no listener. */
    public static FencedStore create(BlobContainerClient container) {
        return builder(container).build();
    }

    /**
     * A builder for a store on {@code container}: keys as blob names (no prefix),
     * {@link Policy#MONOTONIC}, requests bounded by 10 s and no listener unless set.
     *
     * @throws IllegalArgumentException if {@code container} is null
     */
    public static Builder builder(BlobContainerClient container) {
        return new Builder(Checks.requireNonNull("container", container));
    }

    /** Configures an {@link AzureBlobFencedStore}; every setting but the container is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        /** Blob names are at most this many characters, the prefix's included. */
        private static final int MAX_NAME_CHARS = 1024;

        private final BlobContainerClient container;
        private String keyPrefix = "";
        private Duration requestTimeout = Duration.ofSeconds(10);

        private Builder(BlobContainerClient container) {
            this.container = container;
        }

        /**
         * What every blob name starts with: the store keeps {@code key} at {@code keyPrefix + key}.
         * Default none; at most 1023 characters, so that a name fits in Azure's 1024; no backslash,
         * which Azure stores as a slash (keys with one are refused too).
         *
         * @throws IllegalArgumentException if {@code keyPrefix} is null, longer or has a backslash, naming it
         */
        public Builder keyPrefix(String keyPrefix) {
            Checks.requireNonNull("keyPrefix", keyPrefix);
            AzureBlobStorageAccessor.requireNoBackslash("keyPrefix", keyPrefix);
            if (keyPrefix.length() >= MAX_NAME_CHARS) {
                throw new IllegalArgumentException("keyPrefix must be at most " + (MAX_NAME_CHARS - 1) + " characters"
                        + " (a blob name, prefix included, is at most " + MAX_NAME_CHARS + "), got " + keyPrefix.length()
                        + " characters starting '" + keyPrefix.substring(0, 32) + "…'");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * How long each request of the store may take, 100 ms to 1 h; default 10 s. A server that
         * does not answer fails a read within it, and a write within about three times it (the
         * upload, then the read that decides whether it landed).
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

        /** The store. Sends no request: the container must exist (a write to a missing one names it). */
        @Override
        public FencedStore build() {
            return storeOver(new AzureBlobStorageAccessor(container, Pipelines.withoutRetries(container), keyPrefix,
                    requestTimeout));
        }
    }
}
