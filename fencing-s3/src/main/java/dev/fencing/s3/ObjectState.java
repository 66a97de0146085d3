package dev.fencing.s3;

import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * What a fenced writer knows of the object at a key: absent, or present with its ETag and the
 * toolkit's metadata — the stored token and the resource whose tokens fence the key (null for an
 * object written before it was kept), whether it is a tombstone or a pointer, and the write id that
 * made it (a tombstone and a pointer are present).
 */
record ObjectState(boolean exists, @Nullable String etag, OptionalLong token, @Nullable String resource, boolean tombstone,
        boolean pointer, @Nullable String writeId) {

    static final ObjectState ABSENT = new ObjectState(false, null, OptionalLong.empty(), null, false, false, null);

    /** The state of an object from its ETag and its metadata as a response carried it (names in any case). */
    static ObjectState of(String etag, Map<String, String> metadata) {
        String token = Metadata.get(metadata, Metadata.TOKEN);
        return new ObjectState(true, etag, token == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token)),
                Metadata.decodeResource(Metadata.get(metadata, Metadata.RESOURCE)),
                "true".equals(Metadata.get(metadata, Metadata.DELETED)),
                Metadata.POINTER.equals(Metadata.get(metadata, Metadata.LAYOUT)), Metadata.get(metadata, Metadata.WRITE));
    }

    /** Whether this object was made by the write with {@code writeId}. */
    boolean madeBy(String writeId) {
        return exists && writeId.equals(this.writeId);
    }
}
