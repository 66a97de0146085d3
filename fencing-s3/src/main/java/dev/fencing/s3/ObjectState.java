package dev.fencing.s3;

import java.util.Map;
import java.util.OptionalLong;

/**
 * What a fenced writer knows of an object: absent, or present with its ETag and stored token
 * (a tombstone is present).
 */
record ObjectState(boolean exists, String etag, OptionalLong token, boolean tombstone) {

    static final ObjectState ABSENT = new ObjectState(false, null, OptionalLong.empty(), false);

    static ObjectState of(String etag, Map<String, String> metadata) {
        String token = metadata.get(FencedS3.TOKEN_METADATA);
        return new ObjectState(true, etag, token == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(token)),
                "true".equals(metadata.get(FencedS3.DELETED_METADATA)));
    }
}
