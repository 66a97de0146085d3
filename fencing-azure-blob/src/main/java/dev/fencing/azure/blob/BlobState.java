package dev.fencing.azure.blob;

import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What a writer knows of the blob at a key: absent, or present with its ETag and the toolkit's
 * metadata — the stored token, the lock whose tokens fence the key, whether it is a tombstone and
 * the id of the write that made it. A blob without the toolkit's metadata has no token.
 */
record BlobState(boolean exists, @Nullable String etag, OptionalLong token, @Nullable String lock, boolean tombstone,
        @Nullable String writeId) {

    static final BlobState ABSENT = new BlobState(false, null, OptionalLong.empty(), null, false, null);

    /** The state of a blob from its ETag and its metadata as a response carried it (names in any case). */
    static BlobState of(String etag, @Nullable Map<String, String> metadata) {
        String token = BlobMetadata.get(metadata, BlobMetadata.TOKEN);
        OptionalLong parsed;
        try {
            parsed = token == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the blob's metadata " + BlobMetadata.TOKEN + " = '" + token
                    + "' is not a token: it was not written by this toolkit", e);
        }
        return new BlobState(true, etag, parsed, BlobMetadata.decodeLock(BlobMetadata.get(metadata, BlobMetadata.LOCK)),
                "true".equals(BlobMetadata.get(metadata, BlobMetadata.DELETED)),
                BlobMetadata.get(metadata, BlobMetadata.WRITE));
    }

    /** Whether this blob was made by the write with {@code writeId}. */
    boolean madeBy(String writeId) {
        return exists && writeId.equals(this.writeId);
    }
}
