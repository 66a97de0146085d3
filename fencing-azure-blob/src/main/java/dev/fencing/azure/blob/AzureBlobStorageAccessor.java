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
import dev.fencing.core.FencingToken;
import dev.fencing.core.Policy;
import dev.fencing.core.WriteOutcomeUnknownException;
import dev.fencing.core.spi.OwnerIds;
import dev.fencing.core.spi.Snapshot;
import dev.fencing.core.spi.StorageAccessor;
import dev.fencing.core.spi.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link StorageAccessor} of {@link AzureBlobFencedStore}: each write one conditional upload
 * ({@code If-Match} on the ETag read, or {@code If-None-Match: *}). Thread-safe.
 */
final class AzureBlobStorageAccessor implements StorageAccessor<String> {

    /** How many conditional uploads a write tries while other writers keep changing the blob. */
    static final int WRITE_ATTEMPTS = 5;

    private static final String CONTENT_TYPE = "text/plain; charset=utf-8";

    private final BlobContainerClient container;
    private final BlobContainerClient once;
    private final String prefix;
    private final Duration timeout;

    AzureBlobStorageAccessor(BlobContainerClient container, BlobContainerClient once, String prefix,
            Duration timeout) {
        this.container = container;
        this.once = once;
        this.prefix = prefix;
        this.timeout = timeout;
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
    public boolean unanswered(RuntimeException failure) {
        return BlobErrors.unanswered(failure);
    }

    @Override
    public String server() {
        return "Azure Blob Storage at " + container.getBlobContainerUrl();
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
                    BlobState now;
                    try {
                        now = properties(key);
                    } catch (RuntimeException unread) { // the refusal may answer a re-send of this write
                        e.addSuppressed(unread);
                        throw WriteOutcomeUnknownException.of(prefix + key, e);
                    }
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
}
