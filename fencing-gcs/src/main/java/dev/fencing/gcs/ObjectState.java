package dev.fencing.gcs;

import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What a writer knows of the object at a key: absent, or present with its generation and the
 * toolkit's metadata — the stored token, the lock whose tokens fence the key, whether it is a
 * tombstone and the id of the write that made it. An object without the toolkit's metadata has no
 * token.
 */
record ObjectState(boolean exists, long generation, OptionalLong token, @Nullable String lock, boolean tombstone,
        @Nullable String writeId) {

    /** No object: a write creates it with {@code ifGenerationMatch=0}. */
    static final ObjectState ABSENT = new ObjectState(false, 0, OptionalLong.empty(), null, false, null);

    /** The state of an object from its generation and its metadata (keys in any case). */
    static ObjectState of(long generation, @Nullable Map<String, String> metadata) {
        String token = ObjectMetadata.get(metadata, ObjectMetadata.TOKEN);
        OptionalLong parsed;
        try {
            parsed = token == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the object's metadata " + ObjectMetadata.TOKEN + " = '" + token
                    + "' is not a token: it was not written by this toolkit", e);
        }
        return new ObjectState(true, generation, parsed,
                ObjectMetadata.decodeLock(ObjectMetadata.get(metadata, ObjectMetadata.LOCK)),
                "true".equals(ObjectMetadata.get(metadata, ObjectMetadata.DELETED)),
                ObjectMetadata.get(metadata, ObjectMetadata.WRITE));
    }

    /** The precondition a write over this state sends: this generation, or 0 for no object. */
    long ifGenerationMatch() {
        return exists ? generation : 0;
    }

    /** Whether this object was made by the write with {@code writeId}. */
    boolean madeBy(String writeId) {
        return exists && writeId.equals(this.writeId);
    }
}
