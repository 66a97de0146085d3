package dev.fencing.azure.blob;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobDownloadContentResponse;
import com.azure.storage.blob.models.BlobHttpHeaders;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import dev.fencing.core.ConcurrentUpdateException;
import dev.fencing.core.FencedStore;
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.internal.Checks;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.StoreBuilder;
import dev.fencing.core.spi.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

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
 *       {@value #WRITE_ATTEMPTS} uploads, then {@link ConcurrentUpdateException}.
 *   <li>The upload is sent once, without the SDK's blind retries. When its reply is lost (a
 *       timeout, a dropped connection, a 5xx), read again: this write's id → written; otherwise
 *       {@link WriteOutcomeUnknownException} — never a second application.
 * </ol>
 * A read-modify-write uploads with {@code If-Match} on the ETag it read. Every request is bounded
 * by the builder's request timeout. Thread-safe.
 */
public final class AzureBlobFencedStore implements StorageAccessor<String> {

    /** How many conditional uploads a write tries while other writers keep changing the blob. */
    static final int WRITE_ATTEMPTS = 5;

    private static final String CONTENT_TYPE = "text/plain; charset=utf-8";

    private final BlobContainerClient container;
    private final BlobContainerClient once;
    private final String prefix;
    private final Duration timeout;

    private AzureBlobFencedStore(BlobContainerClient container, BlobContainerClient once, String prefix,
            Duration timeout) {
        this.container = container;
        this.once = once;
        this.prefix = prefix;
        this.timeout = timeout;
    }

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

    @Override
    public Optional<Snapshot<String>> load(String key) {
        try {
            BlobDownloadContentResponse blob = container.getBlobClient(blobName(key))
                    .downloadContentWithResponse(null, null, timeout, Context.NONE);
            String etag = Objects.requireNonNull(blob.getDeserializedHeaders().getETag(), "Azure sends every blob's ETag");
            BlobState state = BlobState.of(etag, blob.getDeserializedHeaders().getMetadata());
            String value = state.tombstone() ? null : new String(blob.getValue().toBytes(), StandardCharsets.UTF_8);
            return Optional.of(new Snapshot<>(value, state.token().orElse(0), state.lock(), etag));
        } catch (RuntimeException e) {
            if (BlobErrors.isBlobNotFound(e)) {
                return Optional.empty();
            }
            throw BlobErrors.translate(e, container.getBlobContainerUrl());
        }
    }

    @Override
    public WriteOutcome write(String key, @Nullable String value, FencingToken token, Policy policy) {
        String writeId = OwnerIds.random();
        BlobState state = properties(key);
        for (int attempt = 1; ; attempt++) {
            WriteOutcome refused = refusal(state, token, policy);
            if (refused != null) {
                return refused;
            }
            if (attempt > WRITE_ATTEMPTS) {
                throw ConcurrentUpdateException.gaveUp(prefix + key, WRITE_ATTEMPTS);
            }
            BlobState now = upload(key, value, token, writeId, state.exists() ? state.etag() : null);
            if (now == null) {
                return WriteOutcome.written();
            }
            state = now;
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
        BlobState now = upload(key, value, token, OwnerIds.random(), expected == null ? null : expected.version());
        return now == null ? WriteOutcome.written() : WriteOutcome.conflict();
    }

    /**
     * The blob of {@code key}. Azure stores a backslash in a blob name as a slash, so {@code a\b}
     * and {@code a/b} would be one blob, each key fenced by the other's tokens: refused.
     *
     * @throws IllegalArgumentException if {@code key} has a backslash, naming it
     */
    private String blobName(String key) {
        return prefix + requireNoBackslash("key", key);
    }

    /** {@code name}, unless it has a backslash, which Azure would store as a slash. */
    static String requireNoBackslash(String what, String name) {
        int at = name.indexOf('\\');
        if (at >= 0) {
            throw new IllegalArgumentException(what + " must not contain a backslash: Azure stores it in a blob name"
                    + " as '/', so '" + name + "' would be the blob of '" + name.replace('\\', '/')
                    + "', got one at index " + at);
        }
        return name;
    }

    /** Why {@code token} may not write over {@code state}; null if it may. */
    private static @Nullable WriteOutcome refusal(BlobState state, FencingToken token, Policy policy) {
        if (state.token().isEmpty()) {
            return null;
        }
        if (state.lock() != null && !state.lock().equals(token.resource())) {
            return WriteOutcome.foreign(state.lock());
        }
        long stored = state.token().getAsLong();
        return policy.accepts(token.value(), stored) ? null : WriteOutcome.stale(stored);
    }

    /**
     * Uploads {@code value} (a tombstone for null) once, on condition the blob's ETag is still
     * {@code ifMatch} (absent for null).
     *
     * @return null if it landed; otherwise the blob's state now, after the condition was refused
     * @throws WriteOutcomeUnknownException if the reply was lost and the blob does not carry {@code writeId}
     */
    private @Nullable BlobState upload(String key, @Nullable String value, FencingToken token, String writeId,
            @Nullable String ifMatch) {
        BlobRequestConditions condition = ifMatch == null ? new BlobRequestConditions().setIfNoneMatch("*")
                : new BlobRequestConditions().setIfMatch(ifMatch);
        BlockBlobSimpleUploadOptions upload = new BlockBlobSimpleUploadOptions(BinaryData.fromString(value == null ? "" : value))
                .setHeaders(new BlobHttpHeaders().setContentType(CONTENT_TYPE))
                .setMetadata(BlobMetadata.of(token, writeId, value == null))
                .setRequestConditions(condition);
        try {
            once.getBlobClient(blobName(key)).getBlockBlobClient().uploadWithResponse(upload, timeout, Context.NONE);
            return null;
        } catch (RuntimeException e) {
            switch (BlobErrors.classify(e)) {
                case CHANGED -> {
                    BlobState now = properties(key);
                    return now.madeBy(writeId) ? null : now; // ours: the refusal answered a re-send of it
                }
                case UNCLEAR -> {
                    if (landed(key, writeId, e)) {
                        return null;
                    }
                    throw WriteOutcomeUnknownException.of(prefix + key, e);
                }
                default -> throw BlobErrors.translate(e, container.getBlobContainerUrl());
            }
        }
    }

    private boolean landed(String key, String writeId, RuntimeException unclear) {
        try {
            return properties(key).madeBy(writeId);
        } catch (RuntimeException e) {
            unclear.addSuppressed(e);
            return false;
        }
    }

    private BlobState properties(String key) {
        try {
            BlobProperties properties = container.getBlobClient(blobName(key))
                    .getPropertiesWithResponse(null, timeout, Context.NONE).getValue();
            return BlobState.of(properties.getETag(), properties.getMetadata());
        } catch (RuntimeException e) {
            if (BlobErrors.isBlobNotFound(e)) {
                return BlobState.ABSENT;
            }
            throw BlobErrors.translate(e, container.getBlobContainerUrl());
        }
    }

    /** Configures an {@link AzureBlobFencedStore}; every setting but the container is optional. */
    public static final class Builder extends StoreBuilder<Builder> {
        /** Blob names are at most this many characters, the prefix's included. */
        private static final int MAX_NAME_CHARS = 1024;

        private final BlobContainerClient container;
        private String prefix = "";
        private Duration requestTimeout = Duration.ofSeconds(10);

        private Builder(BlobContainerClient container) {
            this.container = container;
        }

        /**
         * What every blob name starts with: the store keeps {@code key} at {@code prefix + key}.
         * Default none; at most 1023 characters, so that a name fits in Azure's 1024; no backslash,
         * which Azure stores as a slash (keys with one are refused too).
         *
         * @throws IllegalArgumentException if {@code prefix} is null, longer or has a backslash, naming it
         */
        public Builder prefix(String prefix) {
            Checks.requireNonNull("prefix", prefix);
            requireNoBackslash("prefix", prefix);
            if (prefix.length() >= MAX_NAME_CHARS) {
                throw new IllegalArgumentException("prefix must be at most " + (MAX_NAME_CHARS - 1) + " characters"
                        + " (a blob name, prefix included, is at most " + MAX_NAME_CHARS + "), got " + prefix.length()
                        + " characters starting '" + prefix.substring(0, 32) + "…'");
            }
            this.prefix = prefix;
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
            return storeOver(new AzureBlobFencedStore(container, Pipelines.withoutRetries(container), prefix,
                    requestTimeout));
        }
    }
}
