package dev.fencing.s3;

import java.util.Map;

/**
 * An object read through the fenced wrapper.
 *
 * @param bucket the bucket
 * @param key the key
 * @param content the body
 * @param token the token it was written with
 * @param etag its ETag
 * @param metadata the writer's own user metadata (the toolkit's keys removed)
 * @param contentType its content type
 */
public record FencedObject(String bucket, String key, byte[] content, long token, String etag, Map<String, String> metadata,
        String contentType) {

    /** Copies the metadata. */
    public FencedObject {
        metadata = Map.copyOf(metadata);
    }

    /** The body as UTF-8 text. */
    public String contentAsUtf8() {
        return new String(content, java.nio.charset.StandardCharsets.UTF_8);
    }
}
