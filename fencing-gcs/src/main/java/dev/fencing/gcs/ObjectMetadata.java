package dev.fencing.gcs;

import dev.fencing.core.FencingToken;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The toolkit's custom metadata on an object. GCS keeps metadata keys as they were written (the
 * JSON API) or lower-cases them (the XML API's {@code x-goog-meta-} headers), so the store reads
 * them in any case; values are stored ASCII, the lock name percent-encoded as UTF-8, so an XML
 * reader sees the same bytes.
 *
 * <pre>
 * fencing-token: 42
 * fencing-lock: orders%2F2026+%C3%A9t%C3%A9
 * fencing-write: 9f0c…            (a random id, unique to the write)
 * fencing-deleted: true           (a tombstone only)
 * </pre>
 */
final class ObjectMetadata {

    static final String TOKEN = "fencing-token";
    static final String LOCK = "fencing-lock";
    static final String WRITE = "fencing-write";
    static final String DELETED = "fencing-deleted";

    private ObjectMetadata() {}

    /** The metadata of a write with {@code token} and {@code writeId}; a tombstone if {@code deleted}. */
    static Map<String, String> of(FencingToken token, String writeId, boolean deleted) {
        String value = Long.toString(token.value());
        String lock = encodeLock(token.resource());
        return deleted ? Map.of(TOKEN, value, LOCK, lock, WRITE, writeId, DELETED, "true")
                : Map.of(TOKEN, value, LOCK, lock, WRITE, writeId);
    }

    /** {@code lock} as an ASCII metadata value; {@link #decodeLock} gives it back exactly. */
    static String encodeLock(String lock) {
        return URLEncoder.encode(lock, StandardCharsets.UTF_8);
    }

    /** The lock name stored by {@link #encodeLock}; null for null. */
    static @Nullable String decodeLock(@Nullable String stored) {
        return stored == null ? null : URLDecoder.decode(stored, StandardCharsets.UTF_8);
    }

    /**
     * The value of the toolkit's key {@code name} in {@code metadata}, whatever the case of the key
     * (a tool writing through the XML API stores it lower-cased, another may capitalise it). Null if
     * absent.
     *
     * @throws IllegalStateException if two spellings of the key carry different values
     */
    static @Nullable String get(@Nullable Map<String, String> metadata, String name) {
        if (metadata == null) {
            return null;
        }
        String found = null;
        String foundAs = null;
        for (Map.Entry<String, String> entry : metadata.entrySet()) {
            if (!asciiEqualsIgnoreCase(entry.getKey(), name)) {
                continue;
            }
            if (foundAs != null && !Objects.equals(found, entry.getValue())) {
                throw new IllegalStateException("the object's metadata has '" + foundAs + "' = '" + found + "' and '"
                        + entry.getKey() + "' = '" + entry.getValue() + "': one key in two spellings with different"
                        + " values, so the fence cannot tell which to trust");
            }
            found = entry.getValue();
            foundAs = entry.getKey();
        }
        return found;
    }

    /** ASCII letters in any case, every other character exactly. */
    static boolean asciiEqualsIgnoreCase(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        for (int i = 0; i < a.length(); i++) {
            if (asciiLower(a.charAt(i)) != asciiLower(b.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static char asciiLower(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }
}
